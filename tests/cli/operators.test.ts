import { describe, expect, it } from 'vitest'
import { freshDb } from '@/tests/helpers/db'
import { runCli } from '@/tests/helpers/cli'
import { listActivity } from '@/db/queries/activity'
import { signInWithPassword } from '@/lib/auth/operator-sessions'
import { acceptInvitation } from '@/lib/admin/operators'

describe('toolgate operators', () => {
  it('add, list, role, disable and invite, each on the record as cli:<user>; a password only from standard input', async () => {
    const { db, file } = freshDb()
    const cli = (args: string[], input?: string) => runCli([...args, '--db', file], {}, input)
    const refused = await cli(['operators', 'add', 'alice', '--role', 'approver'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('--password-stdin')
    const added = await cli(['operators', 'add', 'alice', '--name', 'Alice', '--role', 'approver', '--password-stdin'], 'a long enough password\n')
    expect(added.code, added.stderr).toBe(0)
    expect(await signInWithPassword(db, 'alice', 'a long enough password', { address: '10.1.9.1' })).toHaveProperty('session')
    const bad = await cli(['operators', 'role', 'alice', 'superuser'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/viewer, auditor, operator, approver, admin/)
    expect((await cli(['operators', 'role', 'alice', 'auditor'])).stdout).toContain('alice: approver → auditor')
    const invite = await cli(['operators', 'invite', 'bob', '--role', 'viewer', '--url', 'https://tg.example.com/'])
    expect(invite.code, invite.stderr).toBe(0)
    const link = invite.stdout.trim()
    expect(link).toMatch(/^https:\/\/tg\.example\.com\/invite\/tg_iv_[A-Za-z0-9_-]{32}$/)
    expect(await acceptInvitation(db, link.split('/invite/')[1], 'bob chose this one', {})).toHaveProperty('session')
    expect((await cli(['operators', 'disable', 'alice'])).stdout).toContain('alice: disabled')
    const list = JSON.parse((await cli(['operators', 'list', '-o', 'json'])).stdout)
    expect(list.map((o: { username: string; role: string; enabled: boolean }) => [o.username, o.role, o.enabled])).toEqual([['alice', 'auditor', false], ['bob', 'viewer', true]])
    expect(JSON.stringify(list)).not.toMatch(/scrypt|password_hash/)
    expect(listActivity(db, { type: 'operator.changed' }).every((r) => r.actor.startsWith('cli:'))).toBe(true)
  })
})
