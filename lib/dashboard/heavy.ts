import 'server-only'
import type { Db } from '@/db/client'
import { readSettings } from '@/db/queries/settings'
import { findingCounts, reviewSurface, type ToolReview } from '@/lib/approvals/review'
import { ToolgateError, type FailureKind } from '@/lib/core/errors'
import { releaseCrossings } from '@/lib/admin/servers'
import { describeCrossing, scopesOverCeiling } from '@/lib/surface/ceiling'
import { scopeLabel } from '@/lib/surface/report'
import { scopeKey, surfacePage, type SurfacePage } from './surface'

/**
 * The dashboard's heavy work: whole-catalog overlap scoring over every scope, and review findings
 * (each tool's text against every other server's tool ids). At thousands of
 * tools one of these takes seconds of CPU, so the server runs them in a worker thread
 * (lib/server/heavy-worker.ts) and the event loop that answers /mcp and REST only waits for
 * the answer. Each is a pure function of the served lists, so the worker keeps its answers until
 * the state they were computed from changes (db/queries/surface-fingerprint.ts).
 */
export type HeavyJob =
  | { kind: 'surface'; scope?: string }
  | { kind: 'over-ceiling' }
  | { kind: 'review-surface'; id: string }
  /** how many review findings each tool has (each is checked against every other server's tool ids) */
  | { kind: 'findings'; ids: string[] }
  /** what releasing a quarantined server with these pins shown would bring over the ceiling */
  | { kind: 'release-crossings'; server: string; shown: Record<string, string> }

export interface OverCeiling { key: string; label: string; a: string; b: string; score: number; cross_server: boolean; ceiling: number }

interface Results {
  'surface': SurfacePage & { unknown?: string }
  'over-ceiling': OverCeiling[]
  'review-surface': ToolReview['surface']
  'findings': Record<string, number>
  'release-crossings': string[]
}
export type HeavyResult<J extends HeavyJob> = Results[J['kind']]

export function runHeavy<J extends HeavyJob>(db: Db, job: J): HeavyResult<J> {
  const out: Results[keyof Results] = job.kind === 'surface' ? surfacePage(db, job.scope)
    : job.kind === 'over-ceiling' ? scopesOverCeiling(db).map((c) => ({ key: scopeKey(c.scope), label: scopeLabel(c.scope), ...c.pair, ceiling: c.ceiling }))
    : job.kind === 'review-surface' ? reviewSurface(db, job.id)
    : job.kind === 'findings' ? findingCounts(db, job.ids)
    : releaseCrossings(db, job.server, job.shown).map(describeCrossing)
  return out as HeavyResult<J>
}

/** A failure as it crosses the thread boundary (a ToolgateError keeps its kind: a 404 stays a 404). */
export interface HeavyFailure { message: string; kind?: FailureKind }
export const failureOf = (e: unknown): HeavyFailure =>
  e instanceof ToolgateError ? { message: e.message, kind: e.kind } : { message: e instanceof Error ? e.message : String(e) }
export const errorOf = (f: HeavyFailure): Error => (f.kind ? new ToolgateError(f.kind, f.message) : new Error(f.message))

const RUNNER = Symbol.for('toolgate.heavy')
/** A runner answers with the result or the failure as data: the error class is rebuilt here, in the caller's bundle (instanceof holds there). */
export type HeavyAnswer = { result: unknown } | { failure: HeavyFailure }
type Runner = (job: HeavyJob) => Promise<HeavyAnswer>
type WithRunner = typeof globalThis & { [RUNNER]?: Runner }

/** Set by the server process (one runner for the server and the Next.js bundles, as getDb's connection is). */
export function setHeavyRunner(run: Runner | undefined): void {
  (globalThis as WithRunner)[RUNNER] = run
}

/**
 * Run a heavy job off the request loop (the worker reads the same database file as `db`).
 * Outside the server (a script, a lib test) there is no request loop to protect: it runs here, on `db`.
 */
export async function heavy<J extends HeavyJob>(db: Db, job: J): Promise<HeavyResult<J>> {
  const run = (globalThis as WithRunner)[RUNNER]
  if (!run) return runHeavy(db, job)
  const answer = await run(job)
  if ('failure' in answer) throw errorOf(answer.failure)
  return answer.result as HeavyResult<J>
}

/** The Overview's over-ceiling scopes: none without a ceiling, else the worker's answer. */
export async function overCeiling(db: Db): Promise<OverCeiling[]> {
  return readSettings(db).maxDescriptionOverlap === null ? [] : heavy(db, { kind: 'over-ceiling' })
}
