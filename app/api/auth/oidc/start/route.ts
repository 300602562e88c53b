import type { NextRequest } from 'next/server'
import { startOidc } from '../handlers'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** GET /api/auth/oidc/start?next=<path> — begin a single sign-on: off to the identity provider. */
export async function GET(req: NextRequest): Promise<Response> {
  return startOidc(req)
}
