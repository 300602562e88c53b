import { describeError, ToolgateError } from '@/lib/core/errors'
import { logError } from '@/lib/core/log'
import { refusedUnless } from '@/lib/dashboard/operator'
import { previewMcp } from '@/lib/dashboard/preview'
import { previewSchema } from '@/lib/schemas/dashboard'
import { formatIssues } from '@/lib/schemas/issues'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { 'cache-control': 'no-store' } })

/** POST /api/dashboard/preview — what /mcp would answer (Shape A and B) for this form, never recorded. Any signed-in role (it reads, and changes nothing). */
export async function POST(req: Request): Promise<Response> {
  const { denied, principal } = await refusedUnless('view')
  if (denied) return denied
  const parsed = previewSchema.safeParse(await req.json().catch(() => undefined))
  if (!parsed.success) return json({ error: formatIssues(parsed.error), fix: 'Correct the form.' }, 400)
  try {
    return json(await previewMcp(parsed.data, principal.actor))
  } catch (e) {
    if (e instanceof ToolgateError && e.kind === 'bad_request') return json({ error: e.message, fix: 'Correct the form.' }, 400)
    logError(`toolgate dashboard: preview failed: ${describeError(e)}`)
    return json({ error: `The preview could not be computed: ${describeError(e)}`, fix: 'Check that the state database is reachable, then retry.' }, 503)
  }
}
