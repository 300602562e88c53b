import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { believedConnection, THIS_HOST, type Lease } from '@/db/queries/connections'

const row = { state: 'ready' as const, detail: null, action: null, runtimeInstance: 'rt_a' }
// a pid that ran on this machine and exited
const gonePid = spawnSync(process.execPath, ['-e', '']).pid!
const lease = (over: Partial<Lease>): Lease => ({ instance: 'rt_a', pid: process.pid, host: THIS_HOST, url: null, heartbeatAt: Date.now(), expiresAt: Date.now() + 600_000, ...over })

describe('the runtime lease, as readers believe it', () => {
  it('a fresh lease held by a running process vouches for its states', () => {
    expect(believedConnection(row, lease({})).state).toBe('ready')
  })

  it('a lease whose holder on this machine is gone is dead at once, and the detail says why', () => {
    const c = believedConnection(row, lease({ pid: gonePid }))
    expect(c).toMatchObject({ state: 'disconnected', action: null })
    expect(c.detail).toContain(`toolgate's upstream runtime is not running (its process ${gonePid} is gone; its last heartbeat was at`)
  })

  it('a holder on another machine cannot be looked at: its lease holds until it expires', () => {
    expect(believedConnection(row, lease({ pid: gonePid, host: 'another-machine' })).state).toBe('ready')
    expect(believedConnection(row, lease({ pid: gonePid, host: 'another-machine', expiresAt: Date.now() - 1 })).state).toBe('disconnected')
  })
})
