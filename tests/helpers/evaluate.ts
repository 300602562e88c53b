import type { Db } from '@/db/client'
import { readSnapshot } from '@/db/queries/preflight-state'
import { evaluate, type Caller, type EvaluationInput } from '@/lib/preflight/evaluate'

export const operator: Caller = { tier: 'operator', name: 'test' }
export const agent = (allowedServers: string[] = ['*'], profilePin: string | null = null): Caller =>
  ({ tier: 'agent', name: 'token:test', allowedServers, profilePin })

/** The evaluator over one snapshot of a real database, as every surface calls it. */
export function check(db: Db, caller: Caller, ids: string[], opts: Omit<EvaluationInput, 'ids'> = {}) {
  return readSnapshot(db, (state) => evaluate(state, caller, { ids, ...opts }))
}

export function reasonOf(db: Db, caller: Caller, id: string, opts: Omit<EvaluationInput, 'ids'> = {}) {
  const r = check(db, caller, [id], opts).tools[0]
  return r.status === 'ready' ? 'ready' : r.reason
}
