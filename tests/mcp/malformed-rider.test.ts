import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { activityCount, demoState, EXTENSION_ID, legacyClient, legacyRpc, modernClient, modernRpc, sharedValidators, startHarness, type Harness } from './harness'

let h: Harness
beforeAll(async () => {
  h = await startHarness(demoState())
})
afterAll(async () => {
  await h?.server.stop()
})

const ids = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `notes:t${i}` }))

// Each malformed rider, and the words the -32602 message must contain to name the fault.
const cases: { name: string; rider: unknown; fault: string }[] = [
  { name: 'missing tools', rider: {}, fault: 'rider.tools is required' },
  { name: 'empty tools', rider: { tools: [] }, fault: 'rider.tools must not be empty' },
  { name: '51 raw entries (duplicates count)', rider: { tools: Array.from({ length: 51 }, () => ({ id: 'notes:read_note' })) }, fault: 'rider.tools has 51 entries (max 50)' },
  { name: 'tools not an array', rider: { tools: 'notes:read_note' }, fault: 'rider.tools must be an array' },
  { name: 'an entry without id', rider: { tools: [{ id: 'notes:read_note' }, {}] }, fault: 'rider.tools[1].id is required' },
  { name: 'an entry with a non-string id', rider: { tools: [{ id: 7 }] }, fault: 'rider.tools[0].id must be a string' },
  { name: 'an entry with an empty id', rider: { tools: [{ id: '  ' }] }, fault: 'rider.tools[0].id must be a non-empty string' },
  { name: 'an entry that is not an object', rider: { tools: ['notes:read_note'] }, fault: 'rider.tools[0] must be an object' },
  { name: 'an entry with an unknown field', rider: { tools: [{ id: 'notes:read_note', why: 'x' }] }, fault: 'rider.tools[0] has unknown field "why"' },
  { name: 'policy of the wrong type', rider: { tools: ids(1), policy: true }, fault: 'rider.policy must be an object' },
  { name: 'policy as an array', rider: { tools: ids(1), policy: ['read_only_only'] }, fault: 'rider.policy must be an object' },
  { name: 'policy with an unknown member', rider: { tools: ids(1), policy: { read_only: true } }, fault: 'rider.policy has unknown member "read_only"' },
  { name: 'policy with a non-boolean member', rider: { tools: ids(1), policy: { read_only_only: 'yes' } }, fault: 'rider.policy.read_only_only must be a boolean' },
  { name: 'reserved pin_hash on an entry', rider: { tools: [{ id: 'notes:read_note', pin_hash: 'sha256/v1:' + '0'.repeat(64) }] }, fault: 'rider.tools[0].pin_hash is reserved in v1' },
  { name: 'reserved expect_hashes on an entry', rider: { tools: [{ id: 'notes:read_note', expect_hashes: [] }] }, fault: 'rider.tools[0].expect_hashes is reserved in v1' },
  { name: 'reserved expect_hashes', rider: { tools: ids(1), expect_hashes: {} }, fault: 'rider.expect_hashes is reserved in v1' },
  { name: 'reserved pin_hash', rider: { tools: ids(1), pin_hash: 'x' }, fault: 'rider.pin_hash is reserved in v1' },
  { name: 'reserved wait_ms', rider: { tools: ids(1), wait_ms: 500 }, fault: 'rider.wait_ms is reserved in v1' },
  { name: 'reserved profile', rider: { tools: ids(1), profile: 'ops' }, fault: 'rider.profile is reserved in v1' },
  { name: 'an unknown top-level field', rider: { tools: ids(1), verbose: true }, fault: 'rider has unknown field "verbose"' },
  { name: 'a rider that is not an object', rider: ['notes:read_note'], fault: 'rider must be an object' },
  { name: 'a null rider', rider: null, fault: 'rider must be an object' },
]

describe('a negotiated but malformed rider fails the whole carrier with -32602 naming the fault', () => {
  it.each(cases)('2026-07-28: $name', async ({ rider, fault }) => {
    const before = activityCount(h.db)
    const r = await modernRpc(h.mcp, 'tools/list', { _meta: { [EXTENSION_ID]: rider } })
    expect(r.body.result).toBeUndefined()
    expect(r.body.error!.code).toBe(-32602)
    expect(r.body.error!.message).toContain(`malformed ${EXTENSION_ID} rider`)
    expect(r.body.error!.message).toContain(fault)
    expect(activityCount(h.db)).toBe(before) // no partial evaluation, nothing on the record
  })

  it.each(cases)('2025-11-25: $name', async ({ rider, fault }) => {
    const r = await legacyRpc(h.mcp, 'tools/list', { _meta: { [EXTENSION_ID]: rider } })
    expect(r.body.error!.code).toBe(-32602)
    expect(r.body.error!.message).toContain(fault)
  })

  it('every case is also invalid under the shared schema, and a well-formed rider is valid', () => {
    for (const c of cases) {
      // The shared schema allows a blank-but-non-empty id; toolgate refuses it because the
      // trimmed id could never form a valid result (the facet needs a non-empty id).
      if (c.name === 'an entry with an empty id') continue
      expect(sharedValidators.requestRider(c.rider), c.name).toBe(false)
    }
    expect(sharedValidators.requestRider({ tools: ids(50), policy: { read_only_only: true } })).toBe(true)
  })

  it('exactly 50 raw entries is accepted', async () => {
    const r = await modernRpc(h.mcp, 'tools/list', { _meta: { [EXTENSION_ID]: { tools: ids(50) } } })
    expect(r.body.result!._meta[EXTENSION_ID].tools).toHaveLength(50)
  })

  it('the real clients surface the -32602 error', async () => {
    const modern = await modernClient(h.mcp)
    await expect(modern.listTools({ _meta: { [EXTENSION_ID]: { tools: [] } } })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('rider.tools must not be empty') })
    await modern.close()
    const legacy = await legacyClient(h.mcp)
    await expect(legacy.listTools({ _meta: { [EXTENSION_ID]: { tools: ids(1), wait_ms: 10 } } })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('rider.wait_ms is reserved') })
    await legacy.close()
  })
})

describe('an unnegotiated rider is ignored (2026-07-28 without the extension declared)', () => {
  it.each(cases.slice(0, 4))('even a malformed one: $name', async ({ rider }) => {
    const before = activityCount(h.db)
    const r = await modernRpc(h.mcp, 'tools/list', { _meta: { [EXTENSION_ID]: rider } }, { declare: false })
    expect(r.body.error).toBeUndefined()
    expect(r.body.result!._meta[EXTENSION_ID]).toBeUndefined()
    expect(r.body.result!.tools.length).toBeGreaterThan(1)
    expect(activityCount(h.db)).toBe(before)
  })

  it('a well-formed one gives the plain listing, identical to no rider at all', async () => {
    const plain = await modernRpc(h.mcp, 'tools/list', {}, { declare: false })
    const ignored = await modernRpc(h.mcp, 'tools/list', { _meta: { [EXTENSION_ID]: { tools: ids(2) } } }, { declare: false })
    expect(ignored.body.result).toEqual(plain.body.result)
  })
})
