import { describe, expect, it } from 'vitest'
import { openDb } from '@/db/client'
import { listActivity } from '@/db/queries/activity'
import { knownTool } from '@/db/queries/tools'
import { toolApprovals, tools } from '@/db/schema'
import { applyDiscovery } from '@/lib/upstream/discovery'
import { freshDb, load } from '@/tests/helpers/db'
import { check, operator } from '@/tests/helpers/evaluate'

const v1 = (n: number) => `sha256/v1:${String(n).repeat(64).slice(0, 64)}`

describe('hash schema v1 → v2', () => {
  it('re-pins every tool when the database is opened, and current approvals carry over (a schema change is not a rug-pull)', async () => {
    const { db, file } = freshDb()
    await load(db, {
      servers: [{
        // a transport, never connected (no runtime here), so `ready` can be true
        name: 'gh', transport: { url: 'http://127.0.0.1:9/mcp' }, connection: { state: 'ready' }, tools: [
          { name: 'approved', description: 'A', annotations: { readOnlyHint: true } },
          { name: 'implicit', description: 'B' },
          { name: 'changed', description: 'C2', approval: { status: 'changed' as const, previous: { description: 'C1' } } },
          { name: 'pending', description: 'D', approval: { status: 'pending' as const } },
        ].map((t) => ({ ...t, input_schema: { type: 'object' } })),
      }],
    })
    db.update(tools).set({ hash: v1(1) }).run() // what a v1 database holds
    db.update(toolApprovals).set({ approvedHash: v1(2) }).run()
    db.$client.close()

    const reopened = openDb(file)
    for (const name of ['approved', 'implicit', 'changed', 'pending']) expect(knownTool(reopened, 'gh', name)!.hash).toMatch(/^sha256\/v2:/)
    const reasons = check(reopened, operator, ['gh:approved', 'gh:implicit', 'gh:changed', 'gh:pending']).tools.map((t) => (t.status === 'ready' ? 'ready' : t.reason))
    expect(reasons).toEqual(['ready', 'ready', 'tool_changed', 'tool_pending_approval'])
    expect(listActivity(reopened, { type: 'pins.upgraded' })).toMatchObject([{ data: { tools: 4, hash_schema: 2 } }])

    // the carried-over approvals are real: the same definition rediscovered stays approved…
    await applyDiscovery(reopened, 'gh', [
      { name: 'approved', description: 'A', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
      { name: 'implicit', description: 'B', inputSchema: { type: 'object' } },
      { name: 'changed', description: 'C1', inputSchema: { type: 'object' } }, // back to the approved one
      { name: 'pending', description: 'D', inputSchema: { type: 'object' } },
    ])
    expect(check(reopened, operator, ['gh:approved', 'gh:implicit', 'gh:changed']).tools.map((t) => t.status)).toEqual(['ready', 'ready', 'ready'])
    // …and opening again changes nothing more
    reopened.$client.close()
    const third = openDb(file)
    expect(listActivity(third, { type: 'pins.upgraded' })).toHaveLength(1)
  })
})
