import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { listActivity } from '@/db/queries/activity'
import { agentTokens } from '@/db/schema'
import { tokenExpirySchema } from '@/lib/schemas/admin'
import { createAgentToken, rotateAgentToken, setAgentTokenExpiry } from '@/lib/admin/tokens'
import { agentCaller, callerNow, LAST_USED_EVERY_MS } from '@/lib/auth/caller'
import { accessOverview } from '@/lib/dashboard/access'
import { callerFor } from '@/lib/dashboard/preflight'
import { dumpState } from '@/lib/state/dump'
import { loadState, parseStateFile } from '@/lib/state/load'
import { freshDb } from '@/tests/helpers/db'

const ctx = { actor: 'test' }
const ALL = { allowedServers: ['*'], profilePin: null }
const DAY = 86_400_000
const stored = (db: ReturnType<typeof freshDb>['db'], name: string) => db.select().from(agentTokens).where(eq(agentTokens.name, name)).get()!

describe('agent token expiry and last use', () => {
  it('the migration adds the nullable columns', () => {
    const { db } = freshDb()
    const cols = db.$client.prepare<[], { name: string; type: string; notnull: number }>('pragma table_info(agent_tokens)').all()
    expect(cols.filter((c) => c.name === 'expires_at' || c.name === 'last_used_at')).toEqual([
      expect.objectContaining({ name: 'expires_at', type: 'INTEGER', notnull: 0 }),
      expect.objectContaining({ name: 'last_used_at', type: 'INTEGER', notnull: 0 }),
    ])
  })

  it('notes a use at most once a minute (injected clock)', async () => {
    const { db } = freshDb()
    const { token } = await createAgentToken(db, 'a', ALL, ctx)
    const t0 = Date.now()
    expect(agentCaller(db, token, t0)).toMatchObject({ name: 'token:a' })
    expect(stored(db, 'a').lastUsedAt).toBe(t0)
    agentCaller(db, token, t0 + 30_000)
    agentCaller(db, token, t0 + LAST_USED_EVERY_MS)
    expect(stored(db, 'a').lastUsedAt).toBe(t0) // two more uses within the minute: no write
    agentCaller(db, token, t0 + LAST_USED_EVERY_MS + 1)
    expect(stored(db, 'a').lastUsedAt).toBe(t0 + LAST_USED_EVERY_MS + 1)
  })

  it('a use is noted in the background: a locked database does not hold up or fail the caller', async () => {
    const { db, file } = freshDb()
    const { token } = await createAgentToken(db, 'a', ALL, ctx)
    db.$client.pragma('busy_timeout = 0') // as the app's connection (db/client.ts): a lock is waited for by retrying, never by blocking
    const other = freshDb(file).db
    other.$client.exec('begin immediate')
    try {
      expect(agentCaller(db, token)).toMatchObject({ name: 'token:a' })
      expect(stored(db, 'a').lastUsedAt).toBeNull()
    } finally {
      other.$client.exec('rollback')
    }
    // the note is retried once the lock is gone
    await expect.poll(() => stored(db, 'a').lastUsedAt, { timeout: 2_000 }).not.toBeNull()
  })

  it('an expired token is refused saying when; callerNow treats it as revoked', async () => {
    const { db } = freshDb()
    const at = Date.now() + DAY
    const { token } = await createAgentToken(db, 'a', { allowedServers: ['notes'], profilePin: null }, ctx, at)
    const caller = agentCaller(db, token, at - 1)!
    expect(callerNow(db, caller, at - 1)).toMatchObject({ allowedServers: ['notes'], profilePin: null })
    expect(() => agentCaller(db, token, at)).toThrow(`agent token "a" expired at ${new Date(at).toISOString()}`)
    expect(callerNow(db, caller, at)).toMatchObject({ allowedServers: [], profilePin: null })
    expect(callerNow(db, caller, at + DAY)).toMatchObject({ allowedServers: [], profilePin: null })
    // the refusal noted no use
    expect(stored(db, 'a').lastUsedAt).toBe(at - 1)
    // the dashboard's Preflight and /mcp preview as this token answer as /mcp would
    await setAgentTokenExpiry(db, 'a', Date.now() - 1, ctx)
    expect(() => callerFor(db, 'a', 'op')).toThrow(/^agent token "a" expired at /)
  })

  it('creating, setting, clearing and rotating are recorded; rotation keeps the expiry unless given one', async () => {
    const { db } = freshDb()
    const at = Date.now() + DAY
    await createAgentToken(db, 'a', ALL, ctx, at)
    const changes = () => listActivity(db, { limit: 20 }).filter((r) => r.type.startsWith('token.')).map((r) => ({ type: r.type, data: r.data }))
    expect(changes()[0].data).toMatchObject({ target: 'a', before: null, after: { ...ALL, expiresAt: new Date(at).toISOString() } })

    const { token: first } = await rotateAgentToken(db, 'a', ctx)
    expect(stored(db, 'a').expiresAt).toBe(at)
    expect(changes()[0].type).toBe('token.rotated')

    await setAgentTokenExpiry(db, 'a', at + DAY, ctx)
    expect(changes()[0]).toEqual({ type: 'token.expiry_changed', data: { target: 'a', before: { expiresAt: new Date(at).toISOString() }, after: { expiresAt: new Date(at + DAY).toISOString() } } })
    // setting it to what it is already records nothing
    const n = changes().length
    expect((await setAgentTokenExpiry(db, 'a', at + DAY, ctx)).changed).toBe(false)
    expect(changes().length).toBe(n)

    const { token: second } = await rotateAgentToken(db, 'a', ctx, null)
    expect(stored(db, 'a').expiresAt).toBeNull()
    expect(changes().slice(0, 2).map((c) => c.type)).toEqual(['token.rotated', 'token.expiry_changed'])
    expect(agentCaller(db, first)).toBeUndefined()
    expect(agentCaller(db, second)).toMatchObject({ name: 'token:a' })
    await expect(setAgentTokenExpiry(db, 'nope', null, ctx)).rejects.toThrow('no token named "nope"')
  })

  it('the overview says expired or not, and last used or never', async () => {
    const { db } = freshDb()
    const at = Date.now() + DAY
    const { token } = await createAgentToken(db, 'a', ALL, ctx, at)
    await createAgentToken(db, 'b', ALL, ctx)
    agentCaller(db, token)
    const now = accessOverview(db).tokens
    expect(now.map((t) => ({ name: t.name, expiresAt: t.expiresAt, expired: t.expired, used: t.lastUsedAt !== null }))).toEqual([
      { name: 'a', expiresAt: new Date(at).toISOString(), expired: false, used: true },
      { name: 'b', expiresAt: null, expired: false, used: false },
    ])
    expect(accessOverview(db, at).tokens[0].expired).toBe(true)
  })

  it('an expiry set from now on must lie ahead, and says which field', () => {
    expect(tokenExpirySchema.safeParse(null).success).toBe(true)
    expect(tokenExpirySchema.safeParse(Date.now() + 60_000).success).toBe(true)
    const past = tokenExpirySchema.safeParse(Date.now() - 1)
    expect(past.success).toBe(false)
    expect(past.error!.issues[0].message).toBe('must be in the future (or null: never expires)')
    expect(tokenExpirySchema.safeParse(1.5).success).toBe(false)
    expect(tokenExpirySchema.safeParse(Number.NaN).success).toBe(false)
  })
})

describe('expires_at in a state file', () => {
  const file = (expires_at: unknown) => ({ version: 1, agent_tokens: [{ name: 'a', token: 'tg_at_state_file_00000', allowed_servers: ['*'], expires_at }] })

  it('loads, dumps and loads back; a load keeps a token’s last use', async () => {
    const { db } = freshDb()
    await loadState(db, parseStateFile(file('2030-01-01T00:00:00Z')), 'test')
    expect(stored(db, 'a').expiresAt).toBe(Date.parse('2030-01-01T00:00:00Z'))
    const used = Date.now()
    agentCaller(db, 'tg_at_state_file_00000', used)
    const dump = dumpState(db)
    expect(dump.agent_tokens).toEqual([expect.objectContaining({ name: 'a', expires_at: '2030-01-01T00:00:00.000Z' })])
    await loadState(db, parseStateFile(JSON.parse(JSON.stringify(dump))), 'test')
    expect(stored(db, 'a')).toMatchObject({ expiresAt: Date.parse('2030-01-01T00:00:00Z'), lastUsedAt: used })
    // never expiring: no expires_at in the dump
    await loadState(db, parseStateFile(file(null)), 'test')
    expect(dumpState(db).agent_tokens).toHaveLength(1)
    expect(dumpState(db).agent_tokens?.[0]).not.toHaveProperty('expires_at')
  })

  it('a malformed expires_at is refused, naming it', () => {
    expect(() => parseStateFile(file('next tuesday'))).toThrow(/agent_tokens\[0\]\.expires_at: must be an ISO 8601 date-time/)
  })
})
