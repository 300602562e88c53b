import { describe, expect, it } from 'vitest'
import type { Db } from '@/db/client'
import { evaluateNow } from '@/lib/gate/check'
import { freshDb, load } from '@/tests/helpers/db'
import { agent } from '@/tests/helpers/evaluate'

// An agent must not learn what lies outside its scope, not even from how long an answer takes:
// ids on a configured server outside its scope cost what ids on no server at all cost (both
// take the unconfigured path, before any read of a server or tool). The one timing assertion
// in the suite, made robust: interleaved runs after a warm-up, medians compared, and the whole
// measurement repeated before it may fail, so a loaded machine cannot make it flaky.

const TOOLS = 200
const IDS = 20
const name = (i: number) => `tool_${i}_of_this_server`
const caller = agent(['mine'])
// The same ids but for the server: 'yyyy' is configured, outside the token's scope, and has tools
// these ids are the start of (as an agent probing for a server's tools would send); 'zzzz' is
// configured nowhere. Both names are equally far from the one in scope.
const outOfScope = Array.from({ length: IDS }, (_, i) => `yyyy:tool_${i + 1}`)
const unconfigured = Array.from({ length: IDS }, (_, i) => `zzzz:tool_${i + 1}`)

async function state(): Promise<Db> {
  const { db } = freshDb()
  const tools = Array.from({ length: TOOLS }, (_, i) => ({ name: name(i), input_schema: { type: 'object' }, annotations: { readOnlyHint: true, destructiveHint: false } }))
  await load(db, { servers: [{ name: 'mine', connection: { state: 'ready' }, tools }, { name: 'yyyy', connection: { state: 'ready' }, tools }] })
  return db
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** Median µs of one evaluation of each id set, over `runs` interleaved runs (the order alternates). */
function measure(db: Db, runs: number): { outOfScope: number; unconfigured: number } {
  const time = (ids: string[]) => {
    const t = process.hrtime.bigint()
    evaluateNow(db, caller, { ids })
    return Number(process.hrtime.bigint() - t) / 1000
  }
  const a: number[] = []
  const b: number[] = []
  for (let i = 0; i < runs; i++) {
    if (i % 2) { a.push(time(outOfScope)); b.push(time(unconfigured)) } else { b.push(time(unconfigured)); a.push(time(outOfScope)) }
  }
  return { outOfScope: median(a), unconfigured: median(b) }
}

describe('scope leaves no trace in timing', () => {
  it('evaluating out-of-scope ids costs what unconfigured ids cost (medians within 5%)', async () => {
    const db = await state()
    // the answers are the same bytes; only the cost could tell them apart
    expect(evaluateNow(db, caller, { ids: outOfScope }).tools.map((t) => ({ ...t, id: '' })))
      .toEqual(evaluateNow(db, caller, { ids: unconfigured }).tools.map((t) => ({ ...t, id: '' })))
    measure(db, 300) // warm-up: statements prepared, code optimised
    const attempts: string[] = []
    for (let attempt = 0; attempt < 3; attempt++) {
      const m = measure(db, 1_000)
      const ratio = m.outOfScope / m.unconfigured
      attempts.push(`out of scope ${m.outOfScope.toFixed(1)} µs vs unconfigured ${m.unconfigured.toFixed(1)} µs (×${ratio.toFixed(3)})`)
      if (Math.abs(ratio - 1) <= 0.05) return
    }
    expect.fail(`an out-of-scope id costs measurably more (or less) than an unconfigured one, in each of 3 measurements:\n${attempts.join('\n')}`)
  }, 120_000)
})
