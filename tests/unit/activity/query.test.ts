import { describe, expect, it } from 'vitest'
import { openDb } from '@/lib/server/database'
import { listActivity } from '@/db/queries/activity'
import { indexActivityServers, indexedThrough } from '@/db/queries/activity-index'
import { activityServers } from '@/db/schema'
import { approveTool } from '@/lib/admin/tools'
import { runCheck } from '@/lib/gate/check'
import { mintRequestId } from '@/lib/activity/request-id'
import { load } from '@/tests/helpers/db'
import { reasonVerdicts } from '@/lib/preflight/taxonomy'

describe('activity filter by server', () => {
  it('finds the checks that named the server, not only actions on it, newest first and paged, whether or not the index has caught up', async () => {
    const db = openDb(':memory:')
    // transports that are never connected (no runtime here): they let a `ready` state be true
    const transport = { url: 'http://127.0.0.1:9/mcp' }
    await load(db, { servers: [
      { name: 'a', transport, connection: { state: 'ready' }, tools: [{ name: 't', input_schema: {}, approval: { status: 'pending' } }] },
      { name: 'b', transport, connection: { state: 'ready' }, tools: [{ name: 't', input_schema: {} }] },
    ] })
    const check = (ids: string[]) => runCheck(db, { caller: { tier: 'operator', name: 'test' }, surface: 'cli', requestId: mintRequestId(), input: { ids } })
    const both = await check(['a:t', 'b:t', 'not-an-id'])
    const onlyB = await check(['b:t'])
    await approveTool(db, 'a:t', { actor: 'test' })
    const expectFilter = () => {
      const ofA = listActivity(db, { server: 'a' })
      expect(ofA.map((r) => r.type)).toEqual(['tool.approved', 'preflight'])
      expect(ofA[1].requestId).toBe(both.request_id)
      expect(listActivity(db, { server: 'b' }).map((r) => r.requestId)).toEqual([onlyB.request_id, both.request_id])
      expect(listActivity(db, { server: 'b', verdict: 'ready' }).map((r) => r.requestId)).toEqual([onlyB.request_id])
      const [newest] = listActivity(db, { server: 'b', limit: 1 })
      expect(listActivity(db, { server: 'b', before: newest.id }).map((r) => r.requestId)).toEqual([both.request_id])
      expect(listActivity(db, { server: 'nope' })).toEqual([])
    }
    // the index fills in batches off the request path: the filter is the same before, during and after
    expect(indexedThrough(db)).toBe(0)
    expectFilter()
    expect(await indexActivityServers(db, reasonVerdicts, 2)).toBe(true) // part of the records indexed, the rest still a tail
    expect(indexedThrough(db)).toBeGreaterThan(0)
    expectFilter()
    while (await indexActivityServers(db, reasonVerdicts)) { /* catch up */ }
    expect(db.select().from(activityServers).all().map((r) => r.server).sort()).toEqual(['a', 'a', 'b', 'b'])
    expectFilter()
    const plan = db.$client.prepare(`explain query plan select * from activity_servers s join activity a on a.id = s.activity_id
      where s.server = ? order by s.activity_id desc limit 50`).all('b') as { detail: string }[]
    expect(plan.map((p) => p.detail).join('; ')).toMatch(/activity_servers.*PRIMARY KEY|sqlite_autoindex_activity_servers/)
    expect(plan.map((p) => p.detail).join('; ')).not.toMatch(/TEMP B-TREE/)
  })
})
