import 'server-only'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Db } from '@/db/client'
import { schemaVersion } from '@/db/queries/schema-version'
import { describeError } from '@/lib/core/errors'
import { sendJson } from '@/lib/http/json'

/** Where the process is in its life: what a load balancer's checks are told. */
export type Phase = 'starting' | 'serving' | 'draining'

export const HEALTH_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz'])

/**
 * `/healthz`: the process is alive (200 in every phase). `/readyz`: send it traffic — 200 only
 * while serving, with the database answering and at this build's schema; otherwise 503 with
 * the reasons. Both answer without credentials, as load balancers ask, and say nothing beyond
 * these facts. They are answered before the runtime has started, so a starting process is
 * seen as alive but not ready.
 */
export function answerHealth(req: IncomingMessage, res: ServerResponse, path: string, phase: Phase, db: () => Db): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return sendJson(res, 405, { error: `use GET for ${path}` }, { allow: 'GET, HEAD' })
  }
  if (path === '/healthz') return sendJson(res, 200, { status: 'alive', phase })
  const problems: string[] = []
  if (phase === 'starting') problems.push('starting: connection states are being reset before anything is answered')
  else if (phase === 'draining') problems.push('draining: toolgate is stopping; in-flight requests are finishing')
  else {
    try {
      const v = schemaVersion(db())
      if (v.applied !== v.latest) problems.push(`the database's schema is ${v.applied ?? 'empty'}, this toolgate's is ${v.latest}: a newer toolgate migrated it`)
    } catch (e) {
      problems.push(`the database does not answer: ${describeError(e)}`)
    }
  }
  if (problems.length) sendJson(res, 503, { status: 'not_ready', phase, problems }, { 'retry-after': '5' })
  else sendJson(res, 200, { status: 'ready', phase })
}
