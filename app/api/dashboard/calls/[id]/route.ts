import { heldCall } from '@/lib/dashboard/api'
import { refusedUnless } from '@/lib/dashboard/operator'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** GET /api/dashboard/calls/<id> — one held call's whole arguments, which the inbox's poll carries only the start of. A role that reads call arguments (auditor, approver, admin). */
export async function GET(_req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { denied } = await refusedUnless('view_arguments')
  if (denied) return denied
  const { id } = await params
  const args = heldCall(id)
  if (args === undefined) return Response.json({ error: `no held call "${id}"` }, { status: 404, headers: { 'cache-control': 'no-store' } })
  return Response.json({ id, arguments: args }, { headers: { 'cache-control': 'no-store' } })
}
