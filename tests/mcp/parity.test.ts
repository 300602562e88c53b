import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { runCli } from '@/tests/helpers/cli'
import {
  EXTENSION_ID, expectValidFacet, expectValidResolveFacet, legacyClient, modernClient, modernRpc, sharedValidators, startHarness,
  type Harness, type State,
} from './harness'

const TOKEN = 'tg_at_parity_token_0000'
const ready = { state: 'ready' as const }
const obj = { type: 'object' }
// a server that is ready needs something behind it; the runtime is off here, so it is never connected
const transport = { url: 'http://127.0.0.1:9/mcp' }

/** One state in which every code the in-band surface can emit has an id that induces it. */
const parityState: State = {
  servers: [
    {
      name: 'alpha', transport, connection: ready, disabled_tools: ['denied'],
      tools: [
        { name: 'ok', input_schema: obj, annotations: { readOnlyHint: true, openWorldHint: false } },
        { name: 'noanno', input_schema: obj },
        { name: 'writer', input_schema: obj, annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true } },
        { name: 'pending', input_schema: obj, approval: { status: 'pending', disabled: false } },
        { name: 'changed', input_schema: obj, approval: { status: 'changed', disabled: false } },
        { name: 'blocked', input_schema: obj, approval: { status: 'approved', disabled: true } },
        { name: 'denied', input_schema: obj },
      ],
    },
    { name: 'quar', quarantined: true, connection: ready, tools: [{ name: 'x', input_schema: obj }] },
    { name: 'off', enabled: false, connection: ready, tools: [{ name: 'x', input_schema: obj }] },
    { name: 'authy', connection: { state: 'pending_auth', detail: 'refresh token expired' }, tools: [{ name: 'x', input_schema: obj, annotations: { readOnlyHint: true } }] },
    { name: 'broken', connection: { state: 'error', detail: 'ECONNREFUSED 127.0.0.1:9', action: 'restart' }, tools: [{ name: 'x', input_schema: obj }] },
    { name: 'flaky', connection: { state: 'disconnected' }, tools: [{ name: 'x', input_schema: obj }] },
    { name: 'booting', connection: { state: 'connecting' }, tools: [{ name: 'x', input_schema: obj }] },
    { name: 'silent', tools: [{ name: 'x', input_schema: obj }] }, // no published connection state
    { name: 'outside', transport, connection: ready, tools: [{ name: 'x', input_schema: obj }] }, // configured, out of the token's scope
  ],
  agent_tokens: [{ name: 'parity', token: TOKEN, allowed_servers: ['alpha', 'quar', 'off', 'authy', 'broken', 'flaky', 'booting', 'silent'], profile_pin: null }],
}

// id → the code it must induce (undefined = ready). Duplicates and blanks exercise de-duplication.
const plainPass: [string, string | undefined][] = [
  ['alpha:ok', undefined],
  ['alpha:pending', 'tool_pending_approval'],
  ['alpha:changed', 'tool_changed'],
  ['alpha:blocked', 'tool_blocked_by_user'],
  ['alpha:denied', 'tool_denied_by_config'],
  ['quar:x', 'server_quarantined'],
  ['quar:absent', 'server_quarantined'],
  ['off:x', 'server_disabled'],
  ['authy:x', 'oauth_required'],
  ['broken:x', 'server_unhealthy'],
  ['flaky:x', 'server_unhealthy'],
  ['booting:x', 'server_initializing'],
  ['booting:absent', 'server_initializing'],
  ['silent:x', 'server_initializing'],
  ['outside:x', 'not_found'],
  ['ghost:x', 'not_found'],
  ['alpha:absent', 'not_found'],
  ['alpha:okk', 'not_found'],
  ['nocolon', 'not_found'],
]
const policyPass: [string, string | undefined][] = [
  ['alpha:ok', undefined],
  ['alpha:noanno', 'missing_annotation'],
  ['alpha:writer', 'policy_filtered'],
  ['authy:x', 'oauth_required'],
]
const served = ['alpha:ok', 'authy:x', 'broken:x', 'flaky:x', 'booting:x', 'silent:x']

interface Result { id?: string; status: string; reason?: string; retryable?: boolean; action?: string; detail?: string; remediation?: string; did_you_mean?: string[] }
const byId = (tools: Result[]) => Object.fromEntries(tools.map((t) => [t.id!, t]))

let h: Harness
const wire: string[] = [] // every MCP response body seen, for the no-hash check
beforeAll(async () => {
  h = await startHarness(parityState)
})
afterAll(async () => {
  await h?.server.stop()
})

async function overRest(ids: string[], policy?: Record<string, boolean>): Promise<Result[]> {
  const res = await fetch(`${h.server.url}/api/v1/preflight`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ tools: ids.map((id) => ({ id })), ...(policy ? { policy } : {}) }),
  })
  expect(res.status).toBe(200)
  return (await res.json()).data.tools
}

const policyFlags = (policy?: Record<string, boolean>) => (policy?.read_only_only ? ['--read-only-only'] : [])

async function overCli(ids: string[], policy: Record<string, boolean> | undefined, expectedExit: number): Promise<Result[]> {
  const r = await runCli(['tools', 'preflight', '--db', h.file, '--token', TOKEN, '-o', 'json', ...policyFlags(policy), '--', ...ids])
  expect(r.code, r.stderr).toBe(expectedExit)
  return JSON.parse(r.stdout).tools
}

async function overCliInBand(ids: string[], policy: Record<string, boolean> | undefined, expectedExit: number): Promise<Result[]> {
  const r = await runCli(['tools', 'preflight', '--in-band', '--url', h.mcp, '--token', TOKEN, '-o', 'json', ...policyFlags(policy), '--', ...ids])
  expect(r.code, r.stderr).toBe(expectedExit)
  const facet = JSON.parse(r.stdout)
  expectValidFacet(facet)
  return facet.tools
}

async function overCheck(ids: string[], policy?: Record<string, boolean>): Promise<Result[]> {
  const r = await modernRpc(h.mcp, 'tools/call', { name: 'describe_tool', arguments: { tool_ids: ids, check: true, ...(policy ? { filters: policy } : {}) } }, { headers: { authorization: `Bearer ${TOKEN}` } })
  wire.push(r.text)
  return JSON.parse(r.body.result!.content[0].text).results
}

async function overShapeA(ids: string[], policy: Record<string, boolean> | undefined, era: 'modern' | 'legacy'): Promise<Result[]> {
  const client = era === 'modern' ? await modernClient(h.mcp, { token: TOKEN }) : await legacyClient(h.mcp, { token: TOKEN })
  const params = { _meta: { [EXTENSION_ID]: { tools: ids.map((id) => ({ id })), ...(policy ? { policy } : {}) } } }
  const result = await client.listTools(params)
  await client.close()
  wire.push(JSON.stringify(result))
  const facet = result._meta![EXTENSION_ID] as { tools: Result[] }
  expectValidFacet(facet)
  return facet.tools
}

const resolved = z.object({ tool: z.looseObject({ _meta: z.record(z.string(), z.unknown()) }) })
async function overShapeB(ids: string[]): Promise<Result[]> {
  const client = await modernClient(h.mcp, { token: TOKEN })
  const out: Result[] = []
  for (const name of ids) {
    const r = resolved.parse(await client.request({ method: 'tools/resolve', params: { name, arguments: {} } }, resolved))
    wire.push(JSON.stringify(r))
    const facet = r.tool._meta[EXTENSION_ID]
    expectValidResolveFacet(facet)
    out.push({ id: name, ...(facet as Result) })
  }
  await client.close()
  return out
}

describe('parity: one evaluator behind every surface (agent-token tier)', () => {
  const passes = [
    { name: 'no policy', cases: plainPass, policy: undefined, exit: 12 },
    { name: 'read_only_only', cases: policyPass, policy: { read_only_only: true }, exit: 11 },
  ]

  it.each(passes)('$name: REST, CLI --token, CLI --in-band, describe_tool check, Shape A (both eras) and Shape B agree per id', async ({ cases, policy, exit }) => {
    const ids = [...cases.map(([id]) => id), cases[0][0]] // a duplicate: one result per unique id
    const rest = await overRest(ids, policy)
    const surfaces: Record<string, Result[]> = {
      rest,
      cli: await overCli(ids, policy, exit),
      'cli --in-band': await overCliInBand(ids, policy, exit),
      'describe_tool check': await overCheck(ids, policy),
      'Shape A 2026-07-28': await overShapeA(ids, policy, 'modern'),
      'Shape A 2025-11-25': await overShapeA(ids, policy, 'legacy'),
    }
    // The state really induces each code (so the comparison below covers them all).
    expect(rest.map((t) => [t.id, t.reason])).toEqual(cases)
    for (const [surface, tools] of Object.entries(surfaces)) expect(tools, surface).toEqual(rest)

    if (!policy) {
      const shapeB = byId(await overShapeB(served))
      const restById = byId(rest)
      for (const id of served) expect(shapeB[id], id).toEqual(restById[id])
    }
  })

  it('together the passes cover every code the extension can emit', () => {
    const induced = new Set([...plainPass, ...policyPass].map(([, r]) => r).filter(Boolean))
    expect([...induced].sort()).toEqual([...sharedValidators.wireReasons].sort())
  })

  it('the served tools are exactly the ones Shape B can resolve', async () => {
    const list = await modernRpc(h.mcp, 'tools/list', {}, { headers: { authorization: `Bearer ${TOKEN}` } })
    wire.push(list.text)
    expect(list.body.result!.tools.map((t: { name: string }) => t.name)).toEqual(['describe_tool', 'alpha:noanno', 'alpha:ok', 'alpha:writer', ...served.slice(1).sort()])
    for (const id of ['alpha:pending', 'quar:x', 'off:x', 'outside:x', 'ghost:x']) {
      const r = await modernRpc(h.mcp, 'tools/resolve', { name: id }, { headers: { authorization: `Bearer ${TOKEN}` } })
      expect(r.body.error!.code, id).toBe(-32602)
    }
  })
})

describe('scope silence in band', () => {
  // Out of scope (configured), unconfigured, absent in scope: indistinguishable but for the id.
  const silent = ['outside:x', 'ghost:x', 'alpha:absent']
  const anonymised = (t: Result) => JSON.stringify(t).replaceAll(t.id!, '<id>')

  it('out-of-scope, unconfigured and absent ids are byte-identical on Shape A, check mode and REST', async () => {
    const surfaces = [await overShapeA(silent, undefined, 'modern'), await overShapeA(silent, undefined, 'legacy'), await overCheck(silent), await overRest(silent)]
    for (const tools of surfaces) {
      expect(tools.map((t) => t.reason)).toEqual(['not_found', 'not_found', 'not_found'])
      expect(new Set(tools.map(anonymised)).size).toBe(1)
    }
  })

  it('Shape B refuses all three with the same error', async () => {
    const messages = []
    for (const name of silent) {
      const r = await modernRpc(h.mcp, 'tools/resolve', { name }, { headers: { authorization: `Bearer ${TOKEN}` } })
      messages.push(r.body.error!.message.replaceAll(name, '<id>'))
      expect(r.body.error!.code).toBe(-32602)
    }
    expect(new Set(messages).size).toBe(1)
  })

  it('did_you_mean never crosses scope (but does suggest inside it)', async () => {
    const [outsideTypo, insideTypo] = await overShapeA(['outside:xx', 'alpha:okk'], undefined, 'modern')
    expect(outsideTypo.did_you_mean).toBeUndefined()
    expect(insideTypo.did_you_mean).toEqual(['alpha:ok'])
    // The same typo with an unrestricted (anonymous) session does get the suggestion.
    const anon = await modernRpc(h.mcp, 'tools/list', { _meta: { [EXTENSION_ID]: { tools: [{ id: 'outside:xx' }] } } })
    expect(anon.body.result!._meta[EXTENSION_ID].tools[0].did_you_mean).toEqual(['outside:x'])
    const check = await overCheck(['outside:xx'])
    expect(check[0].did_you_mean).toBeUndefined()
  })

  it('no hash anywhere on the MCP surface', () => {
    expect(wire.length).toBeGreaterThan(10)
    for (const body of wire) {
      expect(body).not.toMatch(/sha256\//)
      expect(body).not.toMatch(/"hash"/)
    }
  })
})
