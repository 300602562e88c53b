import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser'
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')
const config = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs'))

async function cruiseIn(dir: string, files: string[]): Promise<ICruiseResult> {
  const cwd = process.cwd()
  process.chdir(dir) // dependency-cruiser names modules relative to the working directory
  try {
    const tsConfig = extractTSConfig(path.join(root, 'tsconfig.json'))
    const result = await cruise(files, { ...config.options, tsConfig: { fileName: path.join(root, 'tsconfig.json') }, validate: true, ruleSet: { forbidden: config.forbidden } }, undefined, { tsConfig })
    return result.output as ICruiseResult
  } finally {
    process.chdir(cwd)
  }
}

/**
 * The raw connection (`$client`: SQL by `.prepare`, `.exec`, `.pragma`, or the engine's own
 * handle) and drizzle's query builder on a handle (`db.select(…)`, `tx.insert(…)`) import
 * nothing, so the cruise cannot see them: each cruised file outside db/ is read for them instead. Above db/ nothing may know which engine runs (a second dialect is planned).
 */
// a handle is whatever is named for one (db, tx, setupDb, readTx …) or got from getDb()
const RAW_SQL = /\$client\b|(\b\w*(db|Db|tx|Tx)\b|\bgetDb\(\))\s*\.\s*(select|insert|update|delete|transaction|run|all|get|query|batch|execute|prepare|exec)\s*\(/
function rawSqlOutsideDb(dir: string, r: ICruiseResult): string[] {
  return r.modules.filter((m) => !m.coreModule && !m.source.startsWith('node_modules/') && !m.source.startsWith('db/') && /[.]tsx?$/.test(m.source))
    .flatMap((m) => readFileSync(path.join(dir, m.source), 'utf8').split('\n').flatMap((line, i) => (RAW_SQL.test(line) ? [`sql-only-in-db: ${m.source}:${i + 1} uses the raw connection or the query builder`] : [])))
}

/** The environment is read in lib/core/config.ts only (the one list of variables toolgate reads). */
const PROCESS_ENV = /\bprocess\.env\b/
function envOutsideConfig(dir: string, r: ICruiseResult): string[] {
  return r.modules.filter((m) => !m.coreModule && !m.source.startsWith('node_modules/') && m.source !== 'lib/core/config.ts' && /[.]tsx?$/.test(m.source))
    .flatMap((m) => readFileSync(path.join(dir, m.source), 'utf8').split('\n').flatMap((line, i) => (PROCESS_ENV.test(line) ? [`env-only-in-config: ${m.source}:${i + 1} reads process.env`] : [])))
}

const named = (v: IViolation) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle?.length ? ` (circle: ${v.cycle.map((c) => c.name).join(' → ')})` : ''}`
const errors = (r: ICruiseResult) => r.summary.violations.filter((v) => v.rule.severity === 'error').map(named)

/** A file's room: lib/<room> or db/<room> (db's own files are the room db); app/ and components/ are one room each. */
function roomOf(file: string): string {
  const parts = file.split('/')
  if (parts[0] === 'lib' || parts[0] === 'db') return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]
  return parts.length > 1 ? parts[0] : file
}

/**
 * The rooms that reach each other (strongly connected, Tarjan), each sorted, with one circle
 * through them (to name in a failure).
 */
function roomKnots(r: ICruiseResult): { rooms: string[]; circle: string[] }[] {
  const edges = new Map<string, Set<string>>()
  for (const m of r.modules) {
    if (m.source.startsWith('node_modules/') || m.coreModule) continue
    const from = roomOf(m.source)
    const to = edges.get(from) ?? edges.set(from, new Set()).get(from)!
    for (const d of m.dependencies) if (!d.coreModule && !d.couldNotResolve && !d.resolved.startsWith('node_modules/') && roomOf(d.resolved) !== from) to.add(roomOf(d.resolved))
  }
  let next = 0
  const index = new Map<string, number>(), low = new Map<string, number>(), stack: string[] = [], knots: string[][] = []
  const visit = (v: string) => {
    index.set(v, next); low.set(v, next++); stack.push(v)
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)) } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const knot: string[] = []
    for (let w = ''; w !== v;) knot.push((w = stack.pop()!))
    if (knot.length > 1) knots.push(knot.sort())
  }
  for (const v of edges.keys()) if (!index.has(v)) visit(v)
  return knots.map((rooms) => ({ rooms, circle: circleThrough(rooms, rooms[0], edges) }))
}

/** One circle from `start` back to it, inside the knot (to name in a failure). */
function circleThrough(rooms: string[], start: string, edges: Map<string, Set<string>>): string[] {
  const inKnot = new Set(rooms)
  const back = new Map<string, string>([[start, '']])
  const queue = [start]
  while (queue.length) {
    const v = queue.shift()!
    for (const w of edges.get(v) ?? []) {
      if (w === start) { const path = [w]; for (let u = v; u; u = back.get(u)!) path.unshift(u); return path }
      if (inKnot.has(w) && !back.has(w)) { back.set(w, v); queue.push(w) }
    }
  }
  return rooms
}

describe('layering (dependency-cruiser, .dependency-cruiser.cjs)', () => {
  it('toolgate keeps its rules: no circle, db/ on the ground floor, the evaluator pure, zod schemas in lib/schemas, SQL in db/ (imports and raw statements), app/ reading through lib/, client components without server modules, one MCP SDK generation, no knot of rooms', async () => {
    const r = await cruiseIn(root, ['lib', 'db', 'app', 'components', 'proxy.ts', 'bin'])
    expect(r.summary.totalCruised).toBeGreaterThan(200)
    expect(errors(r)).toEqual([])
    expect(rawSqlOutsideDb(root, r)).toEqual([])
    expect(envOutsideConfig(root, r)).toEqual([])
    expect(roomKnots(r).map((k) => `rooms in a circle: ${k.circle.join(' → ')} (knot: ${k.rooms.join(', ')})`)).toEqual([])
  })

  it('the rules bite: a planted circle, a back-import from db/, an impure evaluator, a page reading the database, a zod schema built outside lib/schemas, raw SQL outside db/, the environment read outside the config module and a v1 SDK import are each reported by name', async () => {
    const r = await cruiseIn(path.join(root, 'tests/fixtures/layering'), ['app', 'db', 'lib'])
    const found = errors(r)
    expect(found).toContain('db-on-the-ground-floor: db/client.ts → lib/approvals/review.ts')
    expect(found).toContain('evaluator-is-pure: lib/preflight/evaluate.ts → db/client.ts')
    expect(found).toContain('app-reads-through-lib: app/(dashboard)/page.tsx → db/client.ts')
    expect(found.filter((v) => v.startsWith('one-sdk-generation: '))).toEqual(['one-sdk-generation: lib/upstream/transport.ts → ../../../node_modules/@modelcontextprotocol/sdk/dist/esm/shared/transport.d.ts'])
    // a schema built outside lib/schemas is named; zod's types (import type) and lib/schemas' own imports are not
    expect(found.filter((v) => v.startsWith('zod-only-in-schemas:')).map((v) => v.slice(0, v.indexOf(' → ')))).toEqual(['zod-only-in-schemas: lib/admin/zod-schema.ts'])
    expect(rawSqlOutsideDb(path.join(root, 'tests/fixtures/layering'), r)).toEqual(['sql-only-in-db: lib/admin/raw-sql.ts:3 uses the raw connection or the query builder', 'sql-only-in-db: lib/admin/raw-sql.ts:5 uses the raw connection or the query builder'])
    expect(envOutsideConfig(path.join(root, 'tests/fixtures/layering'), r)).toEqual(['env-only-in-config: lib/admin/env.ts:2 reads process.env'])
    expect(found.some((v) => v.startsWith('no-circular: lib/admin/tools.ts → lib/approvals/review.ts (circle: lib/approvals/review.ts → lib/admin/tools.ts'))).toBe(true)
    expect(roomKnots(r).map((k) => k.rooms)).toContainEqual(['lib/admin', 'lib/approvals'])
  })
})
