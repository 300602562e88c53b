import { getDb } from '@/db/client'
import { approvalsInbox } from '@/lib/dashboard/approvals'
import { unauthorizedUnlessSignedIn } from '@/lib/dashboard/operator'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** GET /api/dashboard/calls — the Approvals inbox, polled live. Operator session only. */
export async function GET(): Promise<Response> {
  const denied = await unauthorizedUnlessSignedIn()
  if (denied) return denied
  return Response.json(await approvalsInbox(getDb()), { headers: { 'cache-control': 'no-store' } })
}
