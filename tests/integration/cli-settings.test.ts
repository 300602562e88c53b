import { describe, expect, it } from 'vitest'
import { activity } from '@/db/schema'
import { insertActivity } from '@/lib/activity/record'
import { runCli } from '@/tests/helpers/cli'
import { freshDb, load } from '@/tests/helpers/db'
import { transactionOn } from '@/db/client'

describe('toolgate settings', () => {
  it('lists the settings with their defaults and changes one on the record', async () => {
    const { db, file } = freshDb()
    await load(db, { profiles: [{ name: 'ops', servers: [] }] })
    const list = await runCli(['settings', 'list', '-o', 'json', '--db', file])
    expect(JSON.parse(list.stdout)).toEqual({ quarantine_enabled: true, mcp_anonymous_profile: null, activity_retention_days: 90, call_approval_wait_ms: 60_000, max_description_overlap: null, agent_requests_per_second: 5_000, agent_recorded_mib_per_hour: 64, break_glass_key: true, two_person_rule: 'off', local_accounts: true })
    const set = await runCli(['settings', 'set', 'activity_retention_days', '30', '-o', 'json', '--db', file])
    expect(set.code, set.stderr).toBe(0)
    const out = JSON.parse(set.stdout)
    expect(out).toMatchObject({ changed: 'activity_retention_days', before: { activity_retention_days: 90 }, after: { activity_retention_days: 30 } })
    expect(db.select().from(activity).all().find((r) => r.id === out.activity_id)).toMatchObject({ type: 'settings.changed', requestId: out.request_id })
  })

  it.each([
    [['mcp_anonymous_profile', 'nope'], /mcp_anonymous_profile: no profile "nope" exists/],
    [['activity_retention_days', '0'], /activity_retention_days: must be at least 1 day/],
    [['quarantine_enabled', 'maybe'], /quarantine_enabled: Invalid input: expected boolean/],
    [['no_such_setting', '1'], /no setting named "no_such_setting": the settings are quarantine_enabled, mcp_anonymous_profile, .*, local_accounts\nhint: toolgate settings list shows them/],
    [['two_person_rul', 'all'], /no setting named "two_person_rul".*\nhint: did you mean "two_person_rule"\?/],
    [['two_person_rule', 'maybe'], /two_person_rule: must be off, destructive or all\n/],
    [['max_description_overlap', '1.5'], /max_description_overlap: must be at most 1/],
  ])('refuses %j, naming the field, and changes nothing', async (args, message) => {
    const { db, file } = freshDb()
    await load(db, { profiles: [{ name: 'ops', servers: [] }] })
    const r = await runCli(['settings', 'set', ...args, '--db', file])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(message)
    expect(db.select().from(activity).all().filter((x) => x.type === 'settings.changed')).toEqual([])
  })
})

describe('toolgate activity prune', () => {
  it('prunes by the retention setting, or before a date, and reports how many', async () => {
    const { db, file } = freshDb()
    const day = 24 * 60 * 60 * 1000
    transactionOn(db, (tx) => {
      for (let i = 0; i < 7; i++) insertActivity(tx, { requestId: `ancient_${i}`, type: 'preflight', actor: 't', at: Date.now() - 400 * day, data: { ids_raw: 0, ids_unique: 0, tools: [], duration_ms: 0 } })
      for (let i = 0; i < 3; i++) insertActivity(tx, { requestId: `month_${i}`, type: 'preflight', actor: 't', at: Date.now() - 30 * day, data: { ids_raw: 0, ids_unique: 0, tools: [], duration_ms: 0 } })
    })
    const byRetention = await runCli(['activity', 'prune', '-o', 'json', '--db', file])
    expect(byRetention.code, byRetention.stderr).toBe(0)
    expect(JSON.parse(byRetention.stdout)).toMatchObject({ deleted: 7, records: 4 }) // 3 kept + the prune's own record
    const byDate = await runCli(['activity', 'prune', '--before', new Date(Date.now() - 7 * day).toISOString(), '--db', file])
    expect(byDate.code, byDate.stderr).toBe(0)
    expect(byDate.stdout).toMatch(/^pruned 3 records older than /)
    const bad = await runCli(['activity', 'prune', '--before', 'yesterday-ish', '--db', file])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('--before must be a date')
  })
})

describe('toolgate activity verify', () => {
  it('says ok with the chain head, and names the record someone edited in the database file', async () => {
    const { db, file } = freshDb()
    transactionOn(db, (tx) => {
      for (let i = 0; i < 5; i++) insertActivity(tx, { requestId: `req_${i}`, type: 'preflight', actor: 't', data: { ids_raw: 0, ids_unique: 0, tools: [], duration_ms: 0 } })
    })
    const ok = await runCli(['activity', 'verify', '--db', file])
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.stdout).toMatch(/^ok: 5 records, chained from record 1; head 5 [0-9a-f]{64}\n$/)
    const asJson = await runCli(['activity', 'verify', '-o', 'json', '--db', file])
    expect(JSON.parse(asJson.stdout)).toMatchObject({ ok: true, records: 5, head: { id: 5, hash: expect.stringMatching(/^[0-9a-f]{64}$/) } })
    db.$client.prepare(`update activity set actor = 'somebody else' where id = 3`).run()
    const broken = await runCli(['activity', 'verify', '--db', file])
    expect(broken.code).toBe(3)
    expect(broken.stdout).toBe('broken at record 3: record 3 does not match its hash: its contents were changed after it was written\n')
  })
})
