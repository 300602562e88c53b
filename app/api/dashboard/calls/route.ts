import { refusedUnless } from '@/lib/dashboard/operator'
import { loadApprovals } from '@/lib/dashboard/pages/approvals'
import { can } from '@/lib/auth/roles'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** GET /api/dashboard/calls — the Approvals inbox, polled live. Any role; call arguments only for one that reads them. */
export async function GET(): Promise<Response> {
  const { denied, principal } = await refusedUnless('view')
  if (denied) return denied
  return Response.json(await loadApprovals(can(principal.role, 'view_arguments')), { headers: { 'cache-control': 'no-store' } })
}
