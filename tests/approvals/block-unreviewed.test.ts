import { describe, expect, it } from 'vitest'
import { knownTool } from '@/db/queries/tools'
import { blockTool } from '@/lib/admin/tools'
import { unquarantineServer } from '@/lib/admin/servers'
import { addServer } from '@/lib/admin/upstreams'
import { applyDiscovery } from '@/lib/upstream/discovery'
import { toolInventory } from '@/lib/catalog/inventory'
import { freshDb, load } from '@/tests/helpers/db'

// Blocking a tool nobody approved yet (one only listed by an inspection) blocks it without
// approving it (issue 26: it read "approved, blocked"); a state file's tool, with no record, was
// approved implicitly, and blocking it keeps that.

const ctx = { actor: 'test' }

describe('blocking a tool without an approval record', () => {
  it('an inspected, never-released tool stays unapproved, and the release leaves it pending and blocked', async () => {
    const { db } = freshDb()
    await addServer(db, { name: 'insp', transport: { command: 'node', args: ['x.mjs'] } }, ctx)
    await applyDiscovery(db, 'insp', [{ name: 'hello', inputSchema: { type: 'object' } }, { name: 'wipe', inputSchema: { type: 'object' } }], { inspect: true })
    const r = await blockTool(db, 'insp:wipe', ctx)
    expect(r.after).toEqual({ status: 'pending', disabled: true })
    expect(knownTool(db, 'insp', 'wipe')?.approved).toBeNull()
    await unquarantineServer(db, 'insp', ctx)
    expect(knownTool(db, 'insp', 'wipe')?.approval).toEqual({ status: 'pending', disabled: true })
    expect(knownTool(db, 'insp', 'hello')?.approval).toEqual({ status: 'approved', disabled: false })
    expect(toolInventory(db).find((t) => t.id === 'insp:wipe')).toMatchObject({ approval: 'pending', blocked: true })
  })

  it('a state file\'s tool (implicitly approved) is blocked as approved', async () => {
    const { db } = freshDb()
    await load(db, { servers: [{ name: 'files', tools: [{ name: 'read', input_schema: { type: 'object' } }] }] })
    expect(knownTool(db, 'files', 'read')?.approval).toBeNull()
    const r = await blockTool(db, 'files:read', ctx)
    expect(r).toMatchObject({ before: { status: 'none' }, after: { status: 'approved', disabled: true } })
    expect(knownTool(db, 'files', 'read')?.approved).toMatchObject({ input_schema: { type: 'object' } })
  })
})
