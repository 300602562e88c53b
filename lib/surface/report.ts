import 'server-only'
import { createHash } from 'node:crypto'
import type { Tool } from '@modelcontextprotocol/server'
import type { Db } from '@/db/client'
import { profileServers, tokenByName } from '@/db/queries/access'
import { notFoundError } from '@/lib/core/errors'
import { scopeOf, type Caller } from '@/lib/preflight/evaluate'
import { readSnapshot } from '@/db/queries/preflight-state'
import { allTools, DESCRIBE_TOOL, toMcpTool } from '@/lib/catalog/listing'
import type { ServedTool } from '@/db/queries/served-tools'
import { closestTo, DEFAULT_PAIR_THRESHOLD, overlap, type OverlapPair } from './overlap'
import { countTokens, ENCODING } from './tokens'


/** Whose tool list: the whole served catalog, a profile's, or what one agent token gets. */
export type SurfaceScope = { kind: 'catalog' } | { kind: 'profile'; name: string } | { kind: 'token'; name: string }

export interface SurfaceTool { id: string; tokens: number; description: string }

export interface SurfaceReport {
  scope: SurfaceScope
  encoding: typeof ENCODING
  /** upstream tools served to this scope (toolgate's own describe_tool is not counted) */
  tools: number
  /** tokens of one full tools/list of this scope: the JSON of every page's tools, describe_tool included */
  list_tokens: number
  max_overlap: OverlapPair | null
  pairs: OverlapPair[]
  heaviest: { id: string; tokens: number }[]
  servers: { name: string; tools: number; tokens: number }[]
  /** every served tool with its cost, in listing order (the dashboard's chart and what-if) */
  catalog: SurfaceTool[]
}

export const scopeLabel = (s: SurfaceScope) => s.kind === 'catalog' ? 'the whole catalog' : `${s.kind} ${s.name}`

/** The caller a scope is listed as: exactly what /mcp would serve that profile or token. */
function callerOf(db: Db, scope: SurfaceScope): { caller: Caller; profile: string | undefined } {
  const operator: Caller = { tier: 'operator', name: 'surface' }
  switch (scope.kind) {
    case 'catalog': return { caller: operator, profile: undefined }
    case 'profile':
      if (profileServers(db, scope.name) === undefined) throw notFoundError(`no profile "${scope.name}" exists`)
      return { caller: operator, profile: scope.name }
    case 'token': {
      const t = tokenByName(db, scope.name)
      if (!t) throw notFoundError(`no agent token "${scope.name}" exists`)
      return { caller: { tier: 'agent', name: `token:${t.name}`, allowedServers: t.allowedServers, profilePin: t.profilePin }, profile: undefined }
    }
  }
}

/** Whether a scope reaches a server: the evaluator's own scope rule, as /mcp applies it. */
export function reaches(db: Db, scope: SurfaceScope): (server: string) => boolean {
  const { caller, profile } = callerOf(db, scope)
  return (server) => readSnapshot(db, (state) => scopeOf(state, caller, profile)(server))
}

// Lists of one state, kept while the heavy worker says that state holds (keepServedLists): its
// jobs serve every scope again, and a scope's list is the same until a definition, an approval,
// a server or a scope changes. Nothing else sets it: elsewhere each call reads the list afresh.
const keptLists = new WeakMap<Db, { fingerprint: string; lists: Map<string, Tool[]> }>()

/** Keep served lists on `db` from here on for as long as its state has this fingerprint (db/queries/surface-fingerprint.ts). */
export function keepServedLists(db: Db, fingerprint: string): void {
  if (keptLists.get(db)?.fingerprint !== fingerprint) keptLists.set(db, { fingerprint, lists: new Map() })
}

/** Every tool one full tools/list of this scope returns, through the same pages /mcp serves. */
export function servedList(db: Db, scope: SurfaceScope): Tool[] {
  const lists = keptLists.get(db)?.lists
  const key = scope.kind === 'catalog' ? 'catalog' : `${scope.kind}:${scope.name}`
  let list = lists?.get(key)
  if (!list) {
    list = listed(db, scope)
    lists?.set(key, list)
  }
  return list
}

function listed(db: Db, scope: SurfaceScope): Tool[] {
  return allTools({ db, ...callerOf(db, scope) })
}

const textOf = (t: Tool) => [t.name.slice(t.name.indexOf(':') + 1), t.title ?? '', t.description ?? ''].join(' ')

/** A list's upstream tools as the overlap scores them (toolgate's own describe_tool is not scored). */
export const overlapDocs = (list: readonly Tool[]) => list.filter((t) => t.name !== DESCRIBE_TOOL).map((t) => ({ id: t.name, text: textOf(t) }))

type ReportOptions = { threshold?: number; top?: number; /** keep only the best this many pairs */ pairs?: number }

/**
 * A scope's closest pairs as every summary scores them (the Surface page lists them, the ceiling
 * reads the closest one): one scoring of a list serves the page, the ceiling and the Overview.
 */
export const CLOSEST = { threshold: 0.2, pairs: 5 } as const satisfies ReportOptions

// Reports are a pure function of the list and the options, and scopes often list the same tools
// (every token allowed all servers lists the catalog): each distinct list is scored once.
const KEPT_REPORTS = 48
const kept = new Map<string, Omit<SurfaceReport, 'scope'>>()

/** The report of a list of served tools (also used for what-if lists that are not served yet). */
export function reportOf(scope: SurfaceScope, list: readonly Tool[], opts: ReportOptions = {}): SurfaceReport {
  const json = JSON.stringify(list)
  const key = createHash('sha1').update(JSON.stringify([opts.threshold, opts.top, opts.pairs])).update(json).digest('hex')
  let report = kept.get(key)
  if (report) kept.delete(key) // most recently used goes last
  else report = scored(list, json, opts)
  kept.set(key, report)
  if (kept.size > KEPT_REPORTS) kept.delete(kept.keys().next().value!)
  return { scope, ...report }
}

// A tool's cost by its JSON: the same tools are listed in many scopes (bounded: a catalog's worth, then afresh)
const KEPT_TOOL_COUNTS = 20_000
const toolCounts = new Map<string, number>()
function toolTokens(json: string): number {
  let n = toolCounts.get(json)
  if (n === undefined) {
    if (toolCounts.size >= KEPT_TOOL_COUNTS) toolCounts.clear()
    toolCounts.set(json, (n = countTokens(json)))
  }
  return n
}

function scored(list: readonly Tool[], json: string, opts: ReportOptions): Omit<SurfaceReport, 'scope'> {
  const upstream = list.filter((t) => t.name !== DESCRIBE_TOOL)
  const catalog = upstream.map((t) => ({ id: t.name, tokens: toolTokens(JSON.stringify(t)), description: t.description ?? '' }))
  const { max, pairs } = overlap(overlapDocs(upstream), opts.threshold ?? DEFAULT_PAIR_THRESHOLD, opts.pairs)
  const servers = new Map<string, { name: string; tools: number; tokens: number }>()
  for (const t of catalog) {
    const name = t.id.slice(0, t.id.indexOf(':'))
    const s = servers.get(name) ?? { name, tools: 0, tokens: 0 }
    servers.set(name, { name, tools: s.tools + 1, tokens: s.tokens + t.tokens })
  }
  return {
    encoding: ENCODING,
    tools: upstream.length,
    list_tokens: countTokens(json),
    max_overlap: max, pairs,
    heaviest: [...catalog].sort((a, b) => b.tokens - a.tokens || (a.id < b.id ? -1 : 1)).slice(0, opts.top ?? 10).map(({ id, tokens }) => ({ id, tokens })),
    servers: [...servers.values()].sort((a, b) => b.tokens - a.tokens || (a.name < b.name ? -1 : 1)),
    catalog,
  }
}

/** What one full tools/list of this scope costs, and which of its tools read alike. */
export function surfaceReport(db: Db, scope: SurfaceScope, opts: ReportOptions = {}): SurfaceReport {
  return reportOf(scope, servedList(db, scope), opts)
}

/** A tool as the whole catalog would serve it: its token cost, and the served tools it reads most like. */
export function toolSurface(db: Db, tool: ServedTool, k = 3): { tokens: number; closest: OverlapPair[] } {
  const served = toMcpTool(tool)
  const list = [...servedList(db, { kind: 'catalog' }).filter((t) => t.name !== served.name && t.name !== DESCRIBE_TOOL), served]
  return { tokens: countTokens(JSON.stringify(served)), closest: closestTo(list.map((t) => ({ id: t.name, text: textOf(t) })), served.name, k) }
}
