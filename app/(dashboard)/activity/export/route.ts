import { activityFilterFromSearch } from '@/lib/dashboard/activity'
import { exportActivity } from '@/lib/dashboard/api'
import { refusedUnless } from '@/lib/dashboard/operator'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** GET /activity/export?format=json|csv&<filters> — the filtered records as a file. Operator session only. */
export async function GET(req: Request): Promise<Response> {
  const { denied } = await refusedUnless('export_activity')
  if (denied) return denied
  const sp = Object.fromEntries(new URL(req.url).searchParams)
  const format = sp.format === 'csv' ? 'csv' : sp.format === 'json' ? 'json' : null
  if (!format) return Response.json({ error: 'format must be json or csv', fix: 'Use /activity/export?format=json or ?format=csv.' }, { status: 400 })
  const { filter, problems } = activityFilterFromSearch(sp)
  if (problems.length) return Response.json({ error: problems.join('; '), fix: 'Correct or clear the filter.' }, { status: 400 })
  const { body, type, filename } = exportActivity(filter, format)
  return new Response(body, { headers: { 'content-type': type, 'content-disposition': `attachment; filename="${filename}"`, 'cache-control': 'no-store' } })
}
