import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { activityCount, demoState, EXTENSION_ID, legacyRpc, modernRpc, rider, startHarness, type Harness } from './harness'

let h: Harness
beforeAll(async () => {
  h = await startHarness(demoState())
  // this connection changes the schema under the running server: wait out the server's own
  // short writes (records, heartbeats) instead of failing on the first busy lock
  h.db.$client.pragma('busy_timeout = 10000')
})
afterAll(async () => {
  await h?.server.stop()
})

// The server process shares the database file; a trigger makes every activity insert fail.
const breakActivity = () => h.db.$client.exec(`CREATE TRIGGER mcp_test_no_activity BEFORE INSERT ON activity BEGIN SELECT RAISE(ABORT, 'activity log is read-only in this test'); END`)
afterEach(() => h.db.$client.exec('DROP TRIGGER IF EXISTS mcp_test_no_activity'))

const carriers: [string, () => ReturnType<typeof modernRpc>][] = [
  ['Shape A (2026-07-28)', () => modernRpc(h.mcp, 'tools/list', rider(['notes:read_note']))],
  ['Shape A (2025-11-25)', () => legacyRpc(h.mcp, 'tools/list', rider(['notes:read_note']))],
  ['Shape B', () => modernRpc(h.mcp, 'tools/resolve', { name: 'notes:read_note', arguments: {} })],
  ['describe_tool check', () => modernRpc(h.mcp, 'tools/call', { name: 'describe_tool', arguments: { tool_ids: ['notes:read_note'], check: true } })],
]

describe('when the activity record cannot be written, the carrier fails with -32603, never a verdict', () => {
  it.each(carriers)('%s', async (_name, send) => {
    const ok = await send()
    expect(ok.body.error).toBeUndefined()
    const before = activityCount(h.db)
    breakActivity()
    const r = await send()
    expect(r.status).toBe(200)
    expect(r.body.result).toBeUndefined()
    expect(r.body.error!.code).toBe(-32603)
    expect(r.body.error!.message).toMatch(/activity record not persisted, so no verdict is given: .*activity log is read-only in this test/)
    expect(r.text).not.toContain('"verdict"')
    expect(activityCount(h.db)).toBe(before)
  })

  it('a plain listing needs no record and keeps working; checks recover once the log is writable', async () => {
    breakActivity()
    const plain = await modernRpc(h.mcp, 'tools/list')
    expect(plain.body.result!.tools.length).toBeGreaterThan(1)
    h.db.$client.exec('DROP TRIGGER mcp_test_no_activity')
    const r = await modernRpc(h.mcp, 'tools/list', rider(['notes:read_note']))
    expect(r.body.result!._meta[EXTENSION_ID].verdict).toBe('ready')
  })
})

describe('when state cannot be read, the carrier fails with -32603', () => {
  it('Shape A, Shape B and check mode all refuse rather than fabricate not_found', async () => {
    // Renaming the tools table makes every read of state fail inside the server.
    h.db.$client.exec('ALTER TABLE tools RENAME TO tools_hidden')
    try {
      for (const [, send] of carriers) {
        const r = await send()
        expect(r.body.error?.code, r.text).toBe(-32603)
        expect(r.text).not.toContain('not_found')
      }
    } finally {
      h.db.$client.exec('ALTER TABLE tools_hidden RENAME TO tools')
    }
    const r = await modernRpc(h.mcp, 'tools/list', rider(['notes:read_note']))
    expect(r.body.result!._meta[EXTENSION_ID].verdict).toBe('ready')
  })
})
