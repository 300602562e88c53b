import { beforeEach, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { openDb } from '@/lib/server/database'
import { servers } from '@/db/schema'
import { callConfig } from '@/db/queries/servers'
import { putConnectionState, renewLease, takeLease, THIS_HOST } from '@/db/queries/connections'
import { writeRecords, writeTransaction } from '@/db/write'
import { load, tempDbFile } from '@/tests/helpers/db'
import { operator, reasonOf } from '@/tests/helpers/evaluate'

// The gate keeps the rows it read while nothing served can have changed (db/queries/preflight-state.ts),
// and so does a call's configuration: each change must still apply to the very next call, however it was made.
const srv = { name: 'a', transport: { url: 'http://127.0.0.1:9/mcp' }, connection: { state: 'ready' as const }, tools: [{ name: 't', input_schema: { type: 'object' } }] }
const deny = (db: Db) => db.update(servers).set({ disabledTools: ['t'] }).where(eq(servers.name, 'a')).run()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('the kept snapshot', () => {
  let db: Db
  beforeEach(async () => {
    db = openDb(':memory:')
    await load(db, { servers: [srv] })
    expect(reasonOf(db, operator, 'a:t')).toBe('ready')
  })

  it('sees a change this connection makes outside writeTransaction', () => {
    deny(db)
    expect(reasonOf(db, operator, 'a:t')).toBe('tool_denied_by_config')
  })

  it('sees a write transaction\'s own changes inside it, and keeps none of them once it rolls back', () => {
    expect(() => db.$client.transaction(() => {
      deny(db)
      expect(reasonOf(db, operator, 'a:t')).toBe('tool_denied_by_config')
      throw new Error('rolled back')
    })()).toThrow('rolled back')
    expect(reasonOf(db, operator, 'a:t')).toBe('ready')
  })

  it('keeps a server\'s call configuration (what a tools/call reads) only while nothing served has changed', async () => {
    expect(callConfig(db, 'a')?.callApprovalTools).toEqual([])
    db.update(servers).set({ callApprovalTools: ['t'] }).where(eq(servers.name, 'a')).run()
    expect(callConfig(db, 'a')?.callApprovalTools).toEqual(['t'])
    await writeTransaction(db, (tx) => tx.update(servers).set({ callApprovalTools: [] }).where(eq(servers.name, 'a')).run())
    expect(callConfig(db, 'a')?.callApprovalTools).toEqual([])
  })

  it('sees a change committed through writeTransaction, and is not misled by records written meanwhile', async () => {
    await writeRecords(db, (tx) => tx.update(servers).set({ disabledTools: [] }).where(eq(servers.name, 'a')).run())
    await writeTransaction(db, (tx) => tx.update(servers).set({ disabledTools: ['t'] }).where(eq(servers.name, 'a')).run())
    expect(reasonOf(db, operator, 'a:t')).toBe('tool_denied_by_config')
  })
})

describe('the kept snapshot, with another connection and a runtime lease', () => {
  it('sees another connection\'s commit at the next check', async () => {
    const file = tempDbFile()
    const db = openDb(file)
    await load(db, { servers: [srv] })
    expect(reasonOf(db, operator, 'a:t')).toBe('ready')
    const other = openDb(file)
    deny(other)
    expect(reasonOf(db, operator, 'a:t')).toBe('tool_denied_by_config')
    other.$client.close()
    db.$client.close()
  })

  it('a call\'s kept configuration sees another connection\'s commit at the next call, after a check in the same turn', async () => {
    const file = tempDbFile()
    const db = openDb(file)
    await load(db, { servers: [srv] })
    expect(callConfig(db, 'a')?.callApprovalTools).toEqual([])
    const other = openDb(file)
    other.update(servers).set({ callApprovalTools: ['t'] }).where(eq(servers.name, 'a')).run()
    await sleep(0) // the next call comes in a turn of the event loop of its own
    // as dispatch does: the gate's check, then the configuration, in one turn
    expect(reasonOf(db, operator, 'a:t')).toBe('ready')
    expect(callConfig(db, 'a')?.callApprovalTools).toEqual(['t'])
    other.$client.close()
    db.$client.close()
  })

  it('judges a runtime\'s lease at each check: believed while it is renewed (a record write), not once it runs out', async () => {
    const db = openDb(':memory:')
    await load(db, { servers: [srv] })
    const lease = { instance: 'run_1', pid: process.pid, host: THIS_HOST, url: null, heartbeatAt: Date.now(), expiresAt: Date.now() + 300 }
    await writeTransaction(db, (tx) => {
      takeLease(tx, { ...lease, startedAt: lease.heartbeatAt })
      putConnectionState(tx, 'a', { state: 'ready' }, lease.instance)
    })
    expect(reasonOf(db, operator, 'a:t')).toBe('ready')
    // renewed before it ran out: still believed after the first expiry has passed
    await renewLease(db, { ...lease, heartbeatAt: Date.now(), expiresAt: Date.now() + 600 })
    await sleep(400)
    expect(reasonOf(db, operator, 'a:t')).toBe('ready')
    // not renewed again: once it runs out, the runtime's ready state is no longer believed
    await sleep(400)
    expect(reasonOf(db, operator, 'a:t')).toBe('server_unhealthy')
  })
})
