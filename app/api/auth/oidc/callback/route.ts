import type { NextRequest } from 'next/server'
import { finishOidc } from '../handlers'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** GET /api/auth/oidc/callback — the identity provider's redirect back: checked, then signed in or refused. */
export async function GET(req: NextRequest): Promise<Response> {
  return finishOidc(req)
}
