import { describe, expect, it } from 'vitest'
import type { Db } from '@/db/client'
import { createAgentToken, revokeAgentToken, rotateAgentToken, setAgentTokenExpiry, updateAgentToken } from '@/lib/admin/tokens'
import { writeSettings } from '@/db/queries/settings'
import { writeTransaction } from '@/db/write'
import { agentCaller } from '@/lib/auth/caller'
import { admit } from '@/lib/limits/budgets'
import { runCli } from '@/tests/helpers/cli'
import { freshDb, load } from '@/tests/helpers/db'

// An agent token's row and the rate limits are kept while nothing served can have changed
// (keptRead, db/queries/preflight-state.ts): every change, however and wherever it is made,
// must still apply to the token's very next request.
const ctx = { actor: 'test' }
const ALL = { allowedServers: ['*'], profilePin: null }
const SECRET = 'tg_at_kept_token_test_secret_0001'
/** A request is served in a turn of the event loop of its own. */
const nextRequest = () => new Promise((r) => setImmediate(r))
const scopeOf = (db: Db, token: string) => {
  const caller = agentCaller(db, token)
  return caller?.tier === 'agent' ? caller.allowedServers : caller
}

describe('a kept agent token, changed through this connection', () => {
  it('is refused once revoked, its old secret once rotated, and its new scope applies, each at the next request', async () => {
    const { db } = freshDb()
    await load(db, { profiles: [{ name: 'ops', servers: [] }] })
    const { token } = await createAgentToken(db, 'a', ALL, ctx)
    expect(scopeOf(db, token)).toEqual(['*'])
    await updateAgentToken(db, 'a', { allowedServers: ['b'], profilePin: 'ops' }, ctx)
    expect(agentCaller(db, token)).toMatchObject({ allowedServers: ['b'], profilePin: 'ops' })
    const rotated = (await rotateAgentToken(db, 'a', ctx)).token
    expect(agentCaller(db, token)).toBeUndefined()
    expect(scopeOf(db, rotated)).toEqual(['b'])
    await revokeAgentToken(db, 'a', ctx)
    expect(agentCaller(db, rotated)).toBeUndefined()
    // a token made after its secret was looked up (and found absent) is found
    const again = await createAgentToken(db, 'a', ALL, ctx)
    expect(scopeOf(db, again.token)).toEqual(['*'])
  })

  it('is refused at the moment it expires, and again usable once its expiry is lifted', async () => {
    const { db } = freshDb()
    const { token } = await createAgentToken(db, 'a', ALL, ctx)
    const at = Date.now() + 60_000
    await setAgentTokenExpiry(db, 'a', at, ctx)
    expect(agentCaller(db, token, at - 1)).toMatchObject({ name: 'token:a' })
    expect(() => agentCaller(db, token, at)).toThrow(/agent token "a" expired at/)
    await setAgentTokenExpiry(db, 'a', null, ctx)
    expect(agentCaller(db, token, at)).toMatchObject({ name: 'token:a' })
  })

  it('a changed rate limit applies to the next request', async () => {
    const { db } = freshDb()
    const { token } = await createAgentToken(db, 'limited', ALL, ctx)
    const caller = agentCaller(db, token)!
    const t = Date.now() // one instant: the bucket does not refill between requests
    admit(db, caller, t)
    admit(db, caller, t)
    await writeTransaction(db, (tx) => writeSettings(tx, { agentRequestsPerSecond: 1 }))
    // the bucket now holds at most one second's worth: one request, and the next is refused
    admit(db, caller, t)
    expect(() => admit(db, caller, t)).toThrow(/rate limit: token:limited made more than 1 requests in a second/)
  })
})

describe('a kept agent token, changed by another connection', () => {
  it('sees another connection\'s revocation, rotation, re-scoping and expiry at the next request', async () => {
    const { db, file } = freshDb()
    const { token } = await createAgentToken(db, 'a', ALL, ctx)
    expect(scopeOf(db, token)).toEqual(['*'])
    const other = freshDb(file).db
    await updateAgentToken(other, 'a', { allowedServers: [], profilePin: null }, ctx)
    await nextRequest()
    expect(scopeOf(db, token)).toEqual([])
    await setAgentTokenExpiry(other, 'a', Date.now() - 1, ctx)
    await nextRequest()
    expect(() => agentCaller(db, token)).toThrow(/agent token "a" expired at/)
    await setAgentTokenExpiry(other, 'a', null, ctx)
    const rotated = (await rotateAgentToken(other, 'a', ctx)).token
    await nextRequest()
    expect(agentCaller(db, token)).toBeUndefined()
    expect(scopeOf(db, rotated)).toEqual([])
    await revokeAgentToken(other, 'a', ctx)
    await nextRequest()
    expect(agentCaller(db, rotated)).toBeUndefined()
    other.$client.close()
    db.$client.close()
  })

  it('the CLI: a state load re-scoping or dropping the token, and a changed rate limit, apply to the next request', async () => {
    const { db, file } = freshDb()
    const state = (tokens: object[]) => JSON.stringify({ version: 1, profiles: [{ name: 'ops', servers: [] }], agent_tokens: tokens })
    const loaded = async (tokens: object[]) => {
      const r = await runCli(['state', 'load', '-', '--db', file], {}, state(tokens))
      expect(r.code, r.stderr).toBe(0)
    }
    await loaded([{ name: 'a', token: SECRET, allowed_servers: ['*'] }])
    const caller = agentCaller(db, SECRET)!
    expect(caller).toMatchObject({ allowedServers: ['*'] })
    const t = Date.now()
    admit(db, caller, t)
    admit(db, caller, t)
    const set = await runCli(['settings', 'set', 'agent_requests_per_second', '1', '--db', file])
    expect(set.code, set.stderr).toBe(0)
    admit(db, caller, t)
    expect(() => admit(db, caller, t)).toThrow(/rate limit: token:a made more than 1 requests in a second/)
    await loaded([{ name: 'a', token: SECRET, allowed_servers: [], profile_pin: 'ops' }])
    expect(agentCaller(db, SECRET)).toMatchObject({ allowedServers: [], profilePin: 'ops' })
    await loaded([])
    expect(agentCaller(db, SECRET)).toBeUndefined()
    db.$client.close()
  })
})
