import 'server-only'
import type { Db } from '@/db/client'
import { readSnapshot } from '@/db/queries/preflight-state'
import { evaluate, narrowingOf, type Caller, type EvaluationInput, type TokenScope, type ToolResult } from '@/lib/preflight/evaluate'
import { parseToolId } from '@/lib/preflight/ids'
import { fixFor, type RowFix, type ServerFacts } from './fixes'
import { serverFacts } from './server-facts'

export interface Explained { result: ToolResult; fix: RowFix | null }

export type OperatorCaller = Extract<Caller, { tier: 'operator' }>

/** The operator evaluating under a token's scope: the token's reach, with the operator tier's causes. */
export const operatorAs = (operator: string, t: TokenScope & { name: string }): OperatorCaller =>
  ({ tier: 'operator', name: operator, asToken: { name: t.name, allowedServers: t.allowedServers, profilePin: t.profilePin } })

/**
 * Judge ids at the operator tier with the shared evaluator — as the operator, or under a token's
 * scope — and pair each result with the fix that can work for it. Not a check: nothing is recorded.
 */
export function explainAt(db: Db, viewer: OperatorCaller, input: EvaluationInput): Explained[] {
  const { tools, narrowing } = readSnapshot(db, (state) => ({ tools: evaluate(state, viewer, input).tools, narrowing: narrowingOf(state, viewer, input.profile) }))
  // a page judges thousands of ids on a few hundred servers: each server's facts are read once
  const facts = new Map<string, ServerFacts | undefined>()
  const factsOf = (server: string) => facts.has(server) ? facts.get(server) : facts.set(server, serverFacts(db, server)).get(server)
  return tools.map((result) => {
    if (result.status === 'ready') return { result, fix: null } // nothing to fix
    const p = parseToolId(result.id)
    const server = 'malformed' in p ? null : p.server
    return { result, fix: fixFor(result, { facts: server === null ? undefined : factsOf(server), narrowing: server === null ? null : narrowing(server) }) }
  })
}
