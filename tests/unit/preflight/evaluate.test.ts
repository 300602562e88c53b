import { beforeEach, describe, expect, it } from 'vitest'
import type { Db } from '@/db/client'
import { openDb } from '@/lib/server/database'
import { tools } from '@/db/schema'
import { toolPin } from '@/lib/preflight/hash'
import { MALFORMED_ID_DETAIL, NOT_FOUND_DETAIL } from '@/lib/preflight/evaluate'
import type { StateFileInput } from '@/lib/schemas/state'
import { load } from '@/tests/helpers/db'
import { agent, check, operator, reasonOf } from '@/tests/helpers/evaluate'

type Srv = NonNullable<StateFileInput['servers']>[number]
type T = NonNullable<Srv['tools']>[number]
const ready = { state: 'ready' as const }
const tool = (name: string, extra: Partial<T> = {}): T => ({ name, input_schema: { type: 'object' }, ...extra })
// a transport (never connected: these tests evaluate states, no runtime runs) so `ready` can be true
const srv = (name: string, extra: Partial<Srv> = {}): Srv => ({ name, transport: { url: 'http://127.0.0.1:9/mcp' }, connection: ready, tools: [tool('t')], ...extra })

let db: Db
beforeEach(async () => {
  db = openDb(':memory:')
})

describe('precedence: for each adjacent pair in the chain, the earlier reason wins when both hold', () => {
  it('server_not_configured before server_not_in_scope', async () => {
    await load(db, { servers: [srv('a')], profiles: [{ name: 'p', servers: ['a'] }] })
    expect(reasonOf(db, operator, 'ghost:t', { profile: 'p' })).toBe('server_not_configured')
  })
  it('server_not_in_scope before server_quarantined', async () => {
    await load(db, { servers: [srv('a'), srv('q', { quarantined: true })], profiles: [{ name: 'p', servers: ['a'] }] })
    expect(reasonOf(db, operator, 'q:t', { profile: 'p' })).toBe('server_not_in_scope')
  })
  it('server_quarantined before server_disabled', async () => {
    await load(db, { servers: [srv('q', { quarantined: true, enabled: false })] })
    expect(reasonOf(db, operator, 'q:t')).toBe('server_quarantined')
  })
  it('server_disabled before not_found', async () => {
    await load(db, { servers: [srv('d', { enabled: false })] })
    expect(reasonOf(db, operator, 'd:missing')).toBe('server_disabled')
  })
  it('not_found before tool_denied_by_config (an unknown tool named in disabled_tools)', async () => {
    await load(db, { servers: [srv('a', { disabled_tools: ['missing'] })] })
    expect(reasonOf(db, operator, 'a:missing')).toBe('not_found')
  })
  it('tool_denied_by_config before tool_blocked_by_user', async () => {
    await load(db, { servers: [srv('a', { disabled_tools: ['t'], tools: [tool('t', { approval: { status: 'approved', disabled: true } })] })] })
    expect(reasonOf(db, operator, 'a:t')).toBe('tool_denied_by_config')
  })
  it('tool_blocked_by_user before tool_changed', async () => {
    await load(db, { servers: [srv('a', { tools: [tool('t', { approval: { status: 'changed', disabled: true } })] })] })
    expect(reasonOf(db, operator, 'a:t')).toBe('tool_blocked_by_user')
  })
  // tool_changed / tool_pending_approval are values of one status field and cannot both hold.
  it('tool_pending_approval before hash_mismatch', async () => {
    await load(db, { servers: [srv('a', { tools: [tool('t', { approval: { status: 'pending' } })] })] })
    expect(reasonOf(db, operator, 'a:t', { pins: new Map([['a:t', 'sha256/v3:' + '0'.repeat(64)]]) })).toBe('tool_pending_approval')
  })
  it('tool_changed before hash_mismatch', async () => {
    await load(db, { servers: [srv('a', { tools: [tool('t', { approval: { status: 'changed' } })] })] })
    expect(reasonOf(db, operator, 'a:t', { pins: new Map([['a:t', 'garbage']]) })).toBe('tool_changed')
  })
  it('hash_mismatch before oauth_required', async () => {
    await load(db, { servers: [srv('a', { connection: { state: 'pending_auth' } })] })
    expect(reasonOf(db, operator, 'a:t', { pins: new Map([['a:t', 'garbage']]) })).toBe('hash_mismatch')
  })
  // oauth_required / server_unhealthy / server_initializing are values of one connection state.
  it('server_initializing before the annotation filters', async () => {
    await load(db, { servers: [srv('a', { connection: { state: 'discovering' } })] })
    expect(reasonOf(db, operator, 'a:t', { policy: { read_only_only: true } })).toBe('server_initializing')
  })
  it('the first filter in the fixed order owns the verdict', async () => {
    await load(db, { servers: [srv('a', { tools: [
      tool('rw_unknown_world', { annotations: { readOnlyHint: false } }),
      tool('undeclared_open', { annotations: { openWorldHint: true } }),
    ] })] })
    const policy = { read_only_only: true, exclude_open_world: true }
    expect(reasonOf(db, operator, 'a:rw_unknown_world', { policy })).toBe('policy_filtered')
    expect(reasonOf(db, operator, 'a:undeclared_open', { policy })).toBe('missing_annotation')
  })
  it('a tool that passes every gate is ready', async () => {
    await load(db, { servers: [srv('a', { tools: [tool('t', { annotations: { readOnlyHint: true, openWorldHint: false } })] })] })
    expect(reasonOf(db, operator, 'a:t', { policy: { read_only_only: true, exclude_destructive: true, exclude_open_world: true } })).toBe('ready')
  })
})

describe('existence', () => {
  it('withheld tools exist: pending, changed, blocked and denied tools are never not_found', async () => {
    await load(db, { servers: [srv('a', { disabled_tools: ['denied'], tools: [
      tool('pending', { approval: { status: 'pending' } }), tool('changed', { approval: { status: 'changed' } }),
      tool('blocked', { approval: { status: 'approved', disabled: true } }), tool('denied'),
    ] })] })
    const r = check(db, operator, ['a:pending', 'a:changed', 'a:blocked', 'a:denied']).tools
    expect(r.map((t) => t.status === 'unavailable' && t.reason)).toEqual(['tool_pending_approval', 'tool_changed', 'tool_blocked_by_user', 'tool_denied_by_config'])
  })
  it('a server that is not Ready never says not_found: it gives its connection verdict', async () => {
    await load(db, { servers: [
      srv('conn', { connection: { state: 'connecting' } }), srv('auth', { connection: { state: 'pending_auth' } }),
      srv('err', { connection: { state: 'error' } }), srv('gone', { connection: { state: 'disconnected' } }),
      srv('quiet', { connection: undefined }),
    ] })
    const r = check(db, operator, ['conn:x', 'auth:x', 'err:x', 'gone:x', 'quiet:x']).tools
    expect(r.map((t) => t.status === 'unavailable' && t.reason)).toEqual(['server_initializing', 'oauth_required', 'server_unhealthy', 'server_unhealthy', 'server_initializing'])
  })
  it('a quarantined server reports server_quarantined even for a tool that does not exist', async () => {
    await load(db, { servers: [srv('q', { quarantined: true })] })
    expect(reasonOf(db, operator, 'q:nothing')).toBe('server_quarantined')
  })
})

describe('connection-state mapping and actions', () => {
  it('maps states to reasons with the default or overridden action', async () => {
    await load(db, { servers: [
      srv('a', { connection: { state: 'authenticating' } }),
      srv('b', { connection: { state: 'error', detail: 'boom' } }),
      srv('c', { connection: { state: 'error', action: 'restart' } }),
      srv('d', { connection: { state: 'pending_auth' } }),
    ] })
    const [a, b, c, d] = check(db, operator, ['a:t', 'b:t', 'c:t', 'd:t']).tools
    expect(a).toMatchObject({ reason: 'server_initializing', retryable: true })
    expect(a).not.toHaveProperty('action')
    expect(b).toMatchObject({ reason: 'server_unhealthy', retryable: true, action: 'view_logs' })
    expect(b.status === 'unavailable' && b.detail).toContain('boom')
    expect(c).toMatchObject({ reason: 'server_unhealthy', action: 'restart' })
    expect(c.status === 'unavailable' && c.remediation).toContain('toolgate upstream restart c')
    expect(d).toMatchObject({ reason: 'oauth_required', retryable: false, action: 'login' })
  })

  it('a state-file server (no command, no URL) is never ready: server_unhealthy saying so, where ready would stand', async () => {
    await load(db, { servers: [srv('file', {
      transport: undefined, disabled_tools: ['denied'],
      tools: [tool('t'), tool('p', { approval: { status: 'pending' } }), tool('denied')],
    })] })
    const [t, absent, pending, denied] = check(db, operator, ['file:t', 'file:absent', 'file:p', 'file:denied']).tools
    expect(t).toMatchObject({ reason: 'server_unhealthy', retryable: true, action: 'configure' })
    expect(t.status === 'unavailable' && t.detail).toBe('no command or URL: a state-file example, with nothing behind it to call')
    expect(t.status === 'unavailable' && t.remediation).toBe('Give it a transport: toolgate upstream remove file, then toolgate upstream add file --command <program> (or --url <https://…/mcp>)')
    // the rest of the chain keeps its places: existence is known (the state is ready), the gates come first
    expect([absent, pending, denied].map((r) => r.status === 'unavailable' && r.reason)).toEqual(['not_found', 'tool_pending_approval', 'tool_denied_by_config'])
    expect(check(db, agent(), ['file:t']).tools[0]).toMatchObject({ reason: 'server_unhealthy', action: 'configure' })
  })
})

describe('approval gate', () => {
  const state = (quarantine_enabled: boolean, trust: 'manual' | 'auto') => ({
    settings: { quarantine_enabled },
    servers: [srv('a', { trust, tools: [tool('p', { approval: { status: 'pending' } }), tool('b', { approval: { status: 'approved', disabled: true } })] })],
  })
  it('applies only with the global gate on and a manually trusted server; a user block always applies', async () => {
    await load(db, state(true, 'manual'))
    expect([reasonOf(db, operator, 'a:p'), reasonOf(db, operator, 'a:b')]).toEqual(['tool_pending_approval', 'tool_blocked_by_user'])
    await load(db, state(true, 'auto'))
    expect([reasonOf(db, operator, 'a:p'), reasonOf(db, operator, 'a:b')]).toEqual(['ready', 'tool_blocked_by_user'])
    await load(db, state(false, 'manual'))
    expect([reasonOf(db, operator, 'a:p'), reasonOf(db, operator, 'a:b')]).toEqual(['ready', 'tool_blocked_by_user'])
  })
  it('enabled_tools is an allowlist', async () => {
    await load(db, { servers: [srv('a', { enabled_tools: ['t'], tools: [tool('t'), tool('u')] })] })
    expect([reasonOf(db, operator, 'a:t'), reasonOf(db, operator, 'a:u')]).toEqual(['ready', 'tool_denied_by_config'])
  })
})

describe('ids', () => {
  it('trims, de-duplicates in first-occurrence order, and reports malformed ids per id', async () => {
    await load(db, { servers: [srv('a', { tools: [tool('t'), tool('u')] })] })
    const r = check(db, operator, ['  a:u ', 'a:t', 'a:u', 'nocolon', ':t', 'a: ', ' a : t '])
    expect(r.tools.map((t) => t.id)).toEqual(['a:u', 'a:t', 'nocolon', ':t', 'a:', 'a : t'])
    const [, , noColon, blankServer, blankTool, spaced] = r.tools
    for (const bad of [noColon, blankServer, blankTool]) {
      expect(bad).toMatchObject({ status: 'unavailable', reason: 'not_found' })
      expect(bad.status === 'unavailable' && bad.detail).toBe(MALFORMED_ID_DETAIL)
    }
    // halves are trimmed: "a : t" names tool t on server a
    expect(spaced.status).toBe('ready')
  })
})

describe('pins', () => {
  beforeEach(() => load(db, { servers: [srv('a')] }))
  const pin = () => toolPin({ name: 't', input_schema: { type: 'object' } })
  const mismatch = (caller = operator, p: string) => check(db, caller, ['a:t'], { pins: new Map([['a:t', p]]) }).tools[0]

  it('a matching pin is ready; operator results carry the current pin, agent results never do', async () => {
    expect(check(db, operator, ['a:t'], { pins: new Map([['a:t', pin()]]) }).tools[0]).toEqual({ id: 'a:t', status: 'ready', hash: pin() })
    expect(check(db, agent(), ['a:t'], { pins: new Map([['a:t', pin()]]) }).tools[0]).toEqual({ id: 'a:t', status: 'ready' })
  })
  it('fails closed with a detail saying which check failed', async () => {
    expect(mismatch(operator, 'sha1:abc')).toMatchObject({ reason: 'hash_mismatch', action: 'configure', detail: expect.stringContaining('not of the form') })
    expect(mismatch(operator, 'sha256/v1:' + 'a'.repeat(64))).toMatchObject({ detail: expect.stringContaining('pin uses hash schema v1; this proxy computes v3') })
    expect(mismatch(operator, 'sha256/v2:' + 'a'.repeat(64))).toMatchObject({ detail: expect.stringContaining('pin uses hash schema v2; this proxy computes v3') })
    const wrong = 'sha256/v3:' + 'b'.repeat(64)
    expect(mismatch(operator, wrong)).toMatchObject({ reason: 'hash_mismatch', detail: expect.stringContaining(pin()) })
    const agentResult = mismatch(agent(), wrong)
    expect(agentResult).toMatchObject({ reason: 'hash_mismatch' })
    expect(JSON.stringify(agentResult)).not.toContain(pin().slice('sha256/v3:'.length))
  })
  it('a tool with no stored hash cannot be verified', async () => {
    db.update(tools).set({ hash: null }).run()
    expect(mismatch(operator, pin())).toMatchObject({ reason: 'hash_mismatch', detail: expect.stringContaining('no stored hash') })
  })
  it('the pin (hash schema v3) covers everything served: name, title, description, schemas, annotations, execution, icons and _meta', async () => {
    const base = { name: 't', description: 'd', input_schema: { type: 'object', properties: { b: 1, a: 2 } } }
    expect(toolPin(base)).toBe(toolPin({ ...base, input_schema: { properties: { a: 2, b: 1 }, type: 'object' } })) // canonical JSON
    expect(toolPin(base)).toMatch(/^sha256\/v3:[0-9a-f]{64}$/)
    const variants = [
      { ...base, name: 'u' }, { ...base, title: 'T' }, { ...base, description: 'e' }, { ...base, output_schema: { type: 'object' } },
      { ...base, annotations: { readOnlyHint: true } }, { ...base, annotations: { readOnlyHint: false } },
      { ...base, execution: { taskSupport: 'required' } }, { ...base, icons: [{ src: 'https://x.example/i.png' }] },
      { ...base, _meta: { ui: { resourceUri: 'ui://a' } } }, { ...base, _meta: { ui: { resourceUri: 'ui://b' } } },
    ]
    const pins = new Set([toolPin(base), ...variants.map(toolPin)])
    expect(pins.size).toBe(variants.length + 1)
  })
})

describe('annotation filters', () => {
  const cases: [Record<string, boolean>, Record<string, boolean>, string][] = [
    [{ read_only_only: true }, {}, 'missing_annotation'],
    [{ read_only_only: true }, { readOnlyHint: false }, 'policy_filtered'],
    [{ read_only_only: true }, { readOnlyHint: true }, 'ready'],
    [{ exclude_destructive: true }, { readOnlyHint: true }, 'ready'],
    [{ exclude_destructive: true }, {}, 'missing_annotation'],
    [{ exclude_destructive: true }, { destructiveHint: true }, 'policy_filtered'],
    [{ exclude_destructive: true }, { readOnlyHint: false, destructiveHint: false }, 'ready'],
    [{ exclude_open_world: true }, {}, 'missing_annotation'],
    [{ exclude_open_world: true }, { openWorldHint: true }, 'policy_filtered'],
    [{ exclude_open_world: true }, { openWorldHint: false }, 'ready'],
  ]
  it.each(cases)('policy %j on annotations %j → %s', async (policy, annotations, expected) => {
    await load(db, { servers: [srv('a', { tools: [tool('t', { annotations })] })] })
    const r = check(db, operator, ['a:t'], { policy }).tools[0]
    expect(r.status === 'ready' ? 'ready' : r.reason).toBe(expected)
    if (expected === 'policy_filtered') expect(r).not.toHaveProperty('action')
  })
})

describe('scope', () => {
  beforeEach(() => load(db, {
    servers: [srv('a'), srv('b'), srv('c')],
    profiles: [{ name: 'ab', servers: ['a', 'b'] }, { name: 'bc', servers: ['b', 'c'] }, { name: 'all', servers: ['a', 'b', 'c'] }],
  }))
  const visible = (caller: ReturnType<typeof agent>, profile?: string) =>
    check(db, caller, ['a:t', 'b:t', 'c:t'], { profile }).tools.filter((t) => t.status === 'ready').map((t) => t.id)

  it('is allowed_servers ∩ profile pin ∩ requested profile', async () => {
    expect(visible(agent(['*']))).toEqual(['a:t', 'b:t', 'c:t'])
    expect(visible(agent([]))).toEqual([])
    expect(visible(agent(['a', 'b']))).toEqual(['a:t', 'b:t'])
    expect(visible(agent(['*'], 'ab'))).toEqual(['a:t', 'b:t'])
    expect(visible(agent(['*'], 'ab'), 'bc')).toEqual(['b:t'])
    expect(visible(agent(['a', 'c'], 'all'), 'bc')).toEqual(['c:t'])
  })
  it('naming another profile can only narrow', async () => {
    expect(visible(agent(['*'], 'ab'), 'all')).toEqual(['a:t', 'b:t'])
  })
  it('a pin naming a deleted profile denies everything', async () => {
    expect(visible(agent(['*'], 'deleted'))).toEqual([])
  })
  it('the operator tier is narrowed only by a requested profile, and names the profile', async () => {
    const r = check(db, operator, ['a:t', 'c:t'], { profile: 'ab' }).tools
    expect(r[0].status).toBe('ready')
    expect(r[1]).toMatchObject({ reason: 'server_not_in_scope', action: 'configure', detail: 'outside profile "ab"; agents in it see not_found' })
  })
  it('an operator evaluating as a token is told which part of its scope excludes a server', async () => {
    const as = (allowedServers: string[], profilePin: string | null): typeof operator => ({ tier: 'operator', name: 'test', asToken: { name: 'bot', allowedServers, profilePin } })
    const detail = (caller: typeof operator, id: string, profile?: string) => {
      const r = check(db, caller, [id], { profile }).tools[0]
      return r.status === 'unavailable' && r.reason === 'server_not_in_scope' ? r.detail : r
    }
    expect(detail(as(['a'], null), 'b:t')).toBe('not in token "bot"\'s allowed_servers; its agents see not_found')
    expect(detail(as(['*'], 'ab'), 'c:t')).toBe('outside profile "ab", which token "bot" is pinned to; its agents see not_found')
    expect(detail(as(['*'], 'gone'), 'a:t')).toBe('token "bot" is pinned to profile "gone", which no longer exists, so it may use no server; its agents see not_found')
    expect(detail(as(['*'], 'ab'), 'b:t', 'bc')).toMatchObject({ status: 'ready' })
  })
  it('the agent tier never learns why: out of scope, unconfigured and absent are one not_found, byte for byte', async () => {
    const [outside, unconfigured, absent] = check(db, agent(['a']), ['b:t', 'zz:t', 'a:nope']).tools
    // did_you_mean depends on the id asked for (suggestions come from the caller's scope only)
    const strip = ({ id: _, ...rest }: typeof outside) => ({ ...rest, did_you_mean: undefined })
    expect(strip(absent)).toEqual({ status: 'unavailable', reason: 'not_found', retryable: false, action: 'configure', detail: NOT_FOUND_DETAIL, remediation: expect.any(String), did_you_mean: undefined })
    expect(strip(outside)).toEqual(strip(absent))
    expect(strip(unconfigured)).toEqual(strip(absent))
  })
})

describe('did_you_mean', () => {
  beforeEach(() => load(db, {
    servers: [
      srv('a', { tools: [tool('read'), tool('reads'), tool('ready'), tool('road'), tool('reap'), tool('rxxd'), tool('pendant'), tool('pending', { approval: { status: 'pending' } })] }),
      srv('h', { tools: [tool('read')] }),
      srv('q', { quarantined: true, tools: [tool('read')] }),
      srv('o', { enabled: false, tools: [tool('read')] }),
    ],
  }))

  it('ranks prefix matches first, then distance, then alphabetically; at most three; never the id itself', async () => {
    const r = check(db, operator, ['a:rea']).tools[0]
    expect(r).toMatchObject({ reason: 'not_found' })
    expect(r.status === 'unavailable' && r.did_you_mean).toEqual(['a:read', 'a:reap', 'a:reads'])
    const self = check(db, operator, ['a:readx']).tools[0]
    expect(self.status === 'unavailable' && self.did_you_mean).toEqual(['a:read', 'a:reads', 'a:ready'])
  })
  it('never names tools of out-of-scope, disabled or quarantined servers, nor withheld tools', async () => {
    const suggested = (allowed: string[]) => check(db, agent(allowed), ['x:read', 'a:pendin']).tools
      .map((t) => (t.status === 'unavailable' && t.did_you_mean) || [])
    // x:read is one edit from a:read, h:read, q:read and o:read, two from a:reads, a:ready, a:reap, a:road;
    // a:pendin is a prefix of a:pending (pending approval) and two edits from a:pendant
    expect(suggested(['a', 'h', 'q', 'o'])).toEqual([['a:read', 'h:read', 'a:reads'], ['a:pendant']])
    expect(suggested(['a', 'q', 'o'])).toEqual([['a:read', 'a:reads', 'a:ready'], ['a:pendant']])
  })
  it('is only given on not_found, and omitted when empty', async () => {
    const r = check(db, operator, ['a:zzzzzzzz']).tools[0]
    expect(r).toMatchObject({ reason: 'not_found' })
    expect(r).not.toHaveProperty('did_you_mean')
  })
})
