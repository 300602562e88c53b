import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { agentTokens } from '@/db/schema'
import { createAgentToken, setAgentTokenExpiry } from '@/lib/admin/tokens'
import { runCli } from '@/tests/helpers/cli'
import { demoState, legacyRpc, modernRpc, startHarness, type Harness } from './harness'

// An agent token's expiry and last use, over real HTTP: /mcp and REST refuse an expired token as
// they refuse an unknown one (401), saying when it expired; each use is noted, at most once a minute.

const ctx = { actor: 'test' }
let h: Harness
beforeAll(async () => { h = await startHarness(demoState()) })
afterAll(async () => { await h?.server.stop() })
beforeEach(() => h.reload(demoState()))

const row = (name: string) => h.db.select().from(agentTokens).where(eq(agentTokens.name, name)).get()!
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })
const restPreflight = (token: string) => fetch(`${h.server.url}/api/v1/preflight`, {
  method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ tools: [{ id: 'notes:read_note' }] }),
})

describe('an expired agent token', () => {
  it('is a 401 on /mcp (both eras) and REST, like an unknown token, naming when it expired', async () => {
    const { token } = await createAgentToken(h.db, 'short-lived', { allowedServers: ['*'], profilePin: null }, ctx, Date.now() + 3_600_000)
    expect((await modernRpc(h.mcp, 'tools/list', {}, bearer(token))).status).toBe(200)
    expect((await restPreflight(token)).status).toBe(200)

    const at = Date.now() - 1_000
    await setAgentTokenExpiry(h.db, 'short-lived', at, ctx)
    const unknown = await modernRpc(h.mcp, 'tools/list', {}, bearer('tg_at_never_issued_0000'))
    const expired = await modernRpc(h.mcp, 'tools/list', {}, bearer(token))
    expect(expired.status).toBe(unknown.status)
    expect(expired.status).toBe(401)
    expect(expired.headers.get('www-authenticate')).toBe(unknown.headers.get('www-authenticate'))
    expect(expired.body.error!.message).toBe(`agent token "short-lived" expired at ${new Date(at).toISOString()}: an admin can give it a new expiry (dashboard → Tokens & profiles → Edit scope and expiry)`)
    const legacy = await legacyRpc(h.mcp, 'tools/list', {}, bearer(token).headers)
    expect(legacy.status).toBe(401)
    expect(legacy.body.error!.message).toContain('expired at')
    const rest = await restPreflight(token)
    expect(rest.status).toBe(401)
    expect(((await rest.json()) as { error: string }).error).toContain(`agent token "short-lived" expired at ${new Date(at).toISOString()}`)

    // cleared: the same secret works again
    await setAgentTokenExpiry(h.db, 'short-lived', null, ctx)
    expect((await modernRpc(h.mcp, 'tools/list', {}, bearer(token))).status).toBe(200)
  })

  it('from a state file (expires_at) is refused too, and the CLI preflight --token says it expired', async () => {
    const s = demoState()
    await h.reload({ ...s, agent_tokens: [...s.agent_tokens!, { name: 'old', token: 'tg_at_old_token_000000', allowed_servers: ['*'], profile_pin: null, expires_at: '2020-01-01T00:00:00Z' }] })
    expect(row('old').expiresAt).toBe(Date.parse('2020-01-01T00:00:00Z'))
    const r = await modernRpc(h.mcp, 'tools/list', {}, bearer('tg_at_old_token_000000'))
    expect(r.status).toBe(401)
    expect(r.body.error!.message).toContain('agent token "old" expired at 2020-01-01T00:00:00.000Z')
    const cli = await runCli(['tools', 'preflight', 'notes:read_note', '--token', 'tg_at_old_token_000000', '--db', h.file])
    expect(cli.code).not.toBe(0)
    expect(cli.stderr).toContain('agent token "old" expired at 2020-01-01T00:00:00.000Z')
  })
})

describe('last used', () => {
  it('is written when a token authenticates, at most once a minute', async () => {
    const { token } = await createAgentToken(h.db, 'busy', { allowedServers: ['*'], profilePin: null }, ctx)
    expect(row('busy').lastUsedAt).toBeNull()
    const before = Date.now()
    expect((await modernRpc(h.mcp, 'tools/list', {}, bearer(token))).status).toBe(200)
    const first = row('busy').lastUsedAt!
    expect(first).toBeGreaterThanOrEqual(before)
    // a second use within the minute writes nothing
    expect((await modernRpc(h.mcp, 'tools/list', {}, bearer(token))).status).toBe(200)
    expect((await restPreflight(token)).status).toBe(200)
    expect(row('busy').lastUsedAt).toBe(first)
    // once the stored use is over a minute old, the next use is written
    h.db.update(agentTokens).set({ lastUsedAt: first - 61_000 }).where(eq(agentTokens.name, 'busy')).run()
    expect((await modernRpc(h.mcp, 'tools/list', {}, bearer(token))).status).toBe(200)
    expect(row('busy').lastUsedAt).toBeGreaterThanOrEqual(first)
  })

  it('a failed write never fails the request', async () => {
    const { token } = await createAgentToken(h.db, 'unnoted', { allowedServers: ['*'], profilePin: null }, ctx)
    h.db.$client.exec(`CREATE TRIGGER refuse_last_use BEFORE UPDATE OF last_used_at ON agent_tokens BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END`)
    try {
      const r = await modernRpc(h.mcp, 'tools/list', {}, bearer(token))
      expect(r.status).toBe(200)
      expect(row('unnoted').lastUsedAt).toBeNull()
    } finally {
      h.db.$client.exec('DROP TRIGGER refuse_last_use')
    }
  })
})
