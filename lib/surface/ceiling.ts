import 'server-only'
import type { Tool } from '@modelcontextprotocol/server'
import type { Db, Tx } from '@/db/client'
import { profileList, tokens } from '@/db/queries/access'
import { readSettings } from '@/db/queries/settings'
import type { KnownTool } from '@/db/queries/tools'
import { recordChange, type ActionContext } from '@/lib/activity/record-change'
import { badRequest } from '@/lib/core/errors'
import { toMcpTool } from '@/lib/catalog/listing'
import { pairsWith, type OverlapPair } from './overlap'
import { CLOSEST, overlapDocs, reaches, reportOf, scopeLabel, servedList, type SurfaceScope } from './report'

/** A scope whose closest pair a change brings over the ceiling. */
export interface Crossing { scope: SurfaceScope; pair: OverlapPair; ceiling: number; /** the tool the change serves (one of the pair) */ added?: string }

/** Every scope an agent can be served: the whole catalog, each profile, each agent token. */
export function allScopes(db: Db): SurfaceScope[] {
  return [
    { kind: 'catalog' },
    ...profileList(db).map((p) => ({ kind: 'profile' as const, name: p.name })),
    ...tokens(db).map((t) => ({ kind: 'token' as const, name: t.name })),
  ]
}

/**
 * The tools a scope would list if `adding` were served too (replacing any served version), or
 * undefined when none of them would reach it.
 */
function withAdded(db: Db, scope: SurfaceScope, adding: readonly Tool[]): Tool[] | undefined {
  const inScope = reaches(db, scope)
  const added = adding.filter((t) => inScope(t.name.slice(0, t.name.indexOf(':'))))
  if (added.length === 0) return undefined
  const ids = new Set(added.map((t) => t.name))
  return [...servedList(db, scope).filter((t) => !ids.has(t.name)), ...added]
}

/**
 * What serving `adding` (tools about to be approved or released) would do to each scope's
 * closest pair: the worst new pair per scope above `settings.max_description_overlap`. Empty
 * when no ceiling is set (report only) or nothing crosses it.
 */
export function crossings(db: Db, adding: readonly KnownTool[]): Crossing[] {
  const ceiling = readSettings(db).maxDescriptionOverlap
  if (ceiling === null || adding.length === 0) return []
  const tools = adding.map(toMcpTool)
  const ids = new Set(tools.map((t) => t.name))
  const found: Crossing[] = []
  for (const scope of allScopes(db)) {
    const list = withAdded(db, scope, tools)
    if (!list) continue
    // only pairs the change creates (an existing pair over the ceiling is not this change's doing),
    // so only those are scored: the added tools against the scope's list
    const worst = pairsWith(overlapDocs(list), ids, ceiling).find((p) => p.score > ceiling)
    if (worst) found.push({ scope, pair: worst, ceiling, added: ids.has(worst.a) ? worst.a : worst.b })
  }
  return found
}

/** The scopes whose closest pair is above the ceiling now (none when no ceiling is set). */
export function scopesOverCeiling(db: Db): Crossing[] {
  const ceiling = readSettings(db).maxDescriptionOverlap
  if (ceiling === null) return []
  return allScopes(db).flatMap((scope) => {
    const max = reportOf(scope, servedList(db, scope), CLOSEST).max_overlap
    return max && max.score > ceiling ? [{ scope, pair: max, ceiling }] : []
  })
}

export function describeCrossing(c: Crossing): string {
  const [first, other] = c.added === c.pair.b ? [c.pair.b, c.pair.a] : [c.pair.a, c.pair.b]
  return `in ${scopeLabel(c.scope)}, ${first} reads like ${other} (overlap ${c.pair.score} > ceiling ${c.ceiling}${c.pair.cross_server ? ', across servers' : ''})`
}

/** Refuse a change that crosses the ceiling unless the operator confirmed it, naming every pair. */
export function requireConfirmation(found: readonly Crossing[], what: string, confirm: boolean | undefined): void {
  if (found.length === 0 || confirm) return
  throw badRequest(`${what} would bring tools over the description-overlap ceiling: ${found.map(describeCrossing).join('; ')}. ` +
    'Agents are likely to confuse such tools; confirm to go ahead anyway (--yes), or change max_description_overlap')
}

/** One `surface.over_ceiling` record per crossing, in the change's own transaction. */
export function recordCrossings(tx: Tx, found: readonly Crossing[], ctx: ActionContext, note: string): void {
  for (const c of found) {
    recordChange(tx, 'surface.over_ceiling', ctx, { target: scopeLabel(c.scope), before: null, after: { ...c.pair, ceiling: c.ceiling }, note }, { server: c.pair.a.slice(0, c.pair.a.indexOf(':')) })
  }
}
