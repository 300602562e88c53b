import { describe, expect, it } from 'vitest'
import { openDb } from '@/lib/server/database'
import { readSnapshot } from '@/db/queries/preflight-state'
import { classifyServer, classifyTool } from '@/lib/preflight/classifier'
import { evaluate, scopeOf, type Caller, type ToolResult } from '@/lib/preflight/evaluate'
import type { StateFileInput } from '@/lib/schemas/state'
import { connectionStates } from '@/db/schema/servers'
import { load } from '@/tests/helpers/db'

/** A small deterministic PRNG, so a failing state can be reproduced from its seed. */
function rng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return { next, pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)], chance: (p: number) => next() < p }
}

const SERVER_NAMES = ['alpha', 'alpa', 'beta', 'bet', 'gamma', 'delta']
const TOOL_NAMES = ['read', 'reads', 'red', 'write', 'wrote', 'list', 'lists', 'del']

function randomState(seed: number): { state: Omit<StateFileInput, 'version'>; caller: Caller; ids: string[]; profile?: string } {
  const r = rng(seed)
  const servers = SERVER_NAMES.filter(() => r.chance(0.7)).map((name) => ({
    name,
    enabled: !r.chance(0.15),
    quarantined: r.chance(0.15),
    trust: r.chance(0.2) ? ('auto' as const) : ('manual' as const),
    disabled_tools: TOOL_NAMES.filter(() => r.chance(0.1)),
    enabled_tools: r.chance(0.15) ? TOOL_NAMES.filter(() => r.chance(0.6)) : null,
    connection: r.chance(0.1) ? undefined : { state: r.chance(0.6) ? ('ready' as const) : r.pick(connectionStates) },
    tools: TOOL_NAMES.filter(() => r.chance(0.5)).map((name) => ({
      name,
      input_schema: { type: 'object' },
      ...(r.chance(0.4) ? { approval: { status: r.pick(['approved', 'pending', 'changed'] as const), disabled: r.chance(0.2) } } : {}),
    })),
  }))
  const profiles = ['p1', 'p2'].filter(() => r.chance(0.7)).map((name) => ({ name, servers: SERVER_NAMES.filter(() => r.chance(0.5)) }))
  const caller: Caller = {
    tier: 'agent', name: 'token:fuzz',
    allowedServers: r.chance(0.3) ? ['*'] : SERVER_NAMES.filter(() => r.chance(0.6)),
    profilePin: r.chance(0.5) ? r.pick(['p1', 'p2', 'deleted']) : null,
  }
  const ids = Array.from({ length: 1 + Math.floor(r.next() * 8) }, () => `${r.pick(SERVER_NAMES)}:${r.pick(TOOL_NAMES)}`)
  const profile = r.chance(0.3) ? profiles[0]?.name : undefined
  return { state: { servers, profiles, settings: { quarantine_enabled: !r.chance(0.2) } }, caller, ids, profile }
}

const withoutSuggestions = (t: ToolResult) => {
  const { did_you_mean: _omit, ...rest } = t as ToolResult & { did_you_mean?: string[] }
  return JSON.stringify(rest)
}

// 3,000 state loads and evaluations: about 15 s of CPU, minutes on a busy 2-core
// machine. The timeout only guards against a hang; it is not a speed limit.
describe('agent-tier invariants over generated states', { timeout: 900_000 }, () => {
  it('holds on 3,000 random states: scope silence, no hashes, suggestions within the usable scope', async () => {
    const db = openDb(':memory:')
    const empty = openDb(':memory:')
    let collapsed = 0
    let suggestions = 0
    for (let seed = 1; seed <= 3000; seed++) {
      const { state, caller, ids, profile } = randomState(seed)
      await load(db, state)
      const result = readSnapshot(db, (s) => {
        const inScope = scopeOf(s, caller, profile)
        const evaluation = evaluate(s, caller, { ids, profile: profile })
        for (const t of evaluation.tools) {
          const ctx = `seed ${seed}, ${t.id}`
          expect(t, ctx).not.toHaveProperty('hash')
          if (t.status === 'ready') continue
          expect(['server_not_in_scope', 'server_not_configured'], ctx).not.toContain(t.reason)
          const server = t.id.slice(0, t.id.indexOf(':'))
          if (!s.server(server) || !inScope(server)) {
            // byte-identical to the not_found of an id that does not exist anywhere
            collapsed++
            const reference = readSnapshot(empty, (e) => evaluate(e, caller, { ids: [t.id] })).tools[0]
            expect(withoutSuggestions(t), ctx).toBe(withoutSuggestions(reference))
          }
          for (const cand of t.did_you_mean ?? []) {
            suggestions++
            const [cs, ct] = cand.split(':')
            const sv = s.server(cs)
            expect(inScope(cs), `${ctx} suggests out-of-scope ${cand}`).toBe(true)
            expect(classifyServer(sv), `${ctx} suggests ${cand} on an unusable server`).toBe('ok')
            expect(classifyTool(sv!, ct, s.tool(cs, ct), s.quarantineEnabled()), `${ctx} suggests withheld ${cand}`).toBe('callable')
          }
        }
        return evaluation
      })
      // the same request judged twice against the same state gives the same bytes
      expect(JSON.stringify(readSnapshot(db, (s) => evaluate(s, caller, { ids, profile })))).toBe(JSON.stringify(result))
    }
    // the generator must actually exercise the collapse and the suggestions
    expect(collapsed).toBeGreaterThan(1000)
    expect(suggestions).toBeGreaterThan(500)
  })
})
