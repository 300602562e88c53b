import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '@/db/client'
import { requestCall } from '@/lib/approvals/calls'
import { mintRequestId } from '@/lib/activity/request-id'
import { freshDb, load, demoStateFile } from '@/tests/helpers/db'
import { startServer, type RunningServer } from '@/tests/helpers/server'
import { operatorSessionHeaders, person } from '@/tests/helpers/session'
import { createPersonalToken } from '@/lib/admin/operators'
import { principalOf } from '@/lib/auth/accounts'
import { can, ROLES, PERMISSIONS, rolesFor, type Permission, type Role } from '@/lib/auth/roles'

/** The issue's table, written out: what each role may do. The module must say exactly this. */
const EXPECTED: Record<Role, Permission[]> = {
  viewer: ['view'],
  auditor: ['view', 'view_arguments', 'export_activity'],
  operator: ['view', 'operate'],
  approver: ['view', 'view_arguments', 'operate', 'approve'],
  admin: ['view', 'view_arguments', 'export_activity', 'operate', 'approve', 'admin'],
}
const permissions = Object.keys(PERMISSIONS) as Permission[]

/** Every server action and the permission it must check (lib/actions/*). */
const ACTIONS: [string, Permission][] = [
  ['createTokenAction', 'admin'], ['updateTokenAction', 'admin'], ['revokeTokenAction', 'admin'],
  ['createProfileAction', 'admin'], ['updateProfileAction', 'admin'], ['deleteProfileAction', 'admin'],
  ['approveCallAction', 'approve'], ['denyCallAction', 'approve'],
  ['runPreflight', 'operate'], ['remediate', 'operate'],
  ['setServerState', 'operate'], ['saveServerSettings', 'approve'], ['changeToolsAction', 'approve'], ['callApprovalAction', 'approve'],
  ['inspectAction', 'operate'], ['releaseAction', 'approve'], ['approveDefinitionAction', 'approve'],
  ['saveSettingsAction', 'admin'], ['pruneNowAction', 'admin'],
  ['startLoginAction', 'operate'], ['restartAction', 'operate'], ['setSecretAction', 'admin'],
  ['signOut', 'view'],
  ['inviteOperatorAction', 'admin'], ['changeOperatorAction', 'admin'],
  ['endSessionAction', 'view'], ['createPersonalTokenAction', 'view'], ['revokePersonalTokenAction', 'view'],
]

const refusalOf = (role: Role, p: Permission) => `you need the ${rolesFor(p).join(' or ')} role (you are ${role})`

describe('roles as one table', () => {
  it('says exactly what the issue says, permission by permission', () => {
    for (const role of ROLES) for (const p of permissions) expect(can(role, p), `${role} × ${p}`).toBe(EXPECTED[role].includes(p))
  })
})

describe('every surface checks the permission it needs (role × permission, allowed and refused)', () => {
  let server: RunningServer
  let db: Db
  const sessions = {} as Record<Role, Record<string, string>>
  const tokens = {} as Record<Role, string>
  const distDir = process.env.NEXT_DIST_DIR || '.next'
  let manifest: Record<string, { exportedName: string }>
  let heldId: string

  beforeAll(async () => {
    const fresh = freshDb()
    db = fresh.db
    await load(db, JSON.parse(readFileSync(demoStateFile(), 'utf8')))
    heldId = (await requestCall(db, { server: 'notes', tool: 'export_notes', args: { note: 'S3CRET-ARGUMENT' }, caller: 'token:nightly', requestId: mintRequestId() })).call.id
    for (const role of ROLES) {
      sessions[role] = await operatorSessionHeaders(db, role, `table-${role}`)
      tokens[role] = (await createPersonalToken(db, principalOf(await person(db, `table-${role}`, role), 'session'), { name: 'table test' })).token
    }
    manifest = JSON.parse(readFileSync(path.join(process.cwd(), distDir, 'server', 'server-reference-manifest.json'), 'utf8')).node
    server = await startServer({ TOOLGATE_DB: fresh.file, TOOLGATE_API_KEY: 'tg_op_roles_table_test_key_0123456789' })
  }, 120_000)
  afterAll(async () => { await server?.stop() })

  const actionId = (name: string) => {
    const hit = Object.entries(manifest).find(([, v]) => v.exportedName === name)
    if (!hit) throw new Error(`server action ${name} is not in the ${distDir} build`)
    return hit[0]
  }

  it('server actions: an allowed role gets as far as checking its input; a refused one is told the role it needs, before its input is looked at', async () => {
    for (const role of ROLES) {
      for (const [name, p] of ACTIONS) {
        // an input no action accepts: an allowed role is refused for the input, so nothing changes either way
        const res = await fetch(`${server.url}/`, {
          method: 'POST',
          headers: { ...sessions[role], 'next-action': actionId(name), accept: 'text/x-component', 'content-type': 'text/plain;charset=UTF-8' },
          body: JSON.stringify([{ probe: 'not an input' }]),
        })
        const text = await res.text()
        expect(res.status, `${role} → ${name}`).toBe(200)
        if (EXPECTED[role].includes(p)) {
          expect(text, `${role} → ${name}`).toContain('Invalid input')
          expect(text, `${role} → ${name}`).not.toContain('you need the')
        } else {
          expect(text, `${role} → ${name}`).toContain(refusalOf(role, p))
        }
      }
    }
  }, 120_000)

  it('route handlers: 403 naming the role for a refused permission, the answer for an allowed one', async () => {
    const routes: [string, Permission, number][] = [
      ['/api/dashboard/calls/call_nope', 'view_arguments', 404],
      ['/api/dashboard/calls/HELD', 'view_arguments', 200],
      ['/activity/export?format=json', 'export_activity', 200],
      ['/api/dashboard/calls', 'view', 200],
      ['/api/dashboard/session', 'view', 204],
    ]
    for (const role of ROLES) {
      for (const [route, p, ok] of routes) {
        const res = await fetch(`${server.url}${route.replace('HELD', heldId)}`, { headers: sessions[role] })
        const body = await res.text()
        if (EXPECTED[role].includes(p)) expect(res.status, `${role} → ${route}`).toBe(ok)
        else {
          expect(res.status, `${role} → ${route}`).toBe(403)
          expect(JSON.parse(body).error, `${role} → ${route}`).toContain(refusalOf(role, p))
        }
      }
    }
  })

  it('the inbox carries call arguments only for a role that reads them', async () => {
    for (const role of ROLES) {
      const text = await (await fetch(`${server.url}/api/dashboard/calls`, { headers: sessions[role] })).text()
      const held = JSON.parse(text).pending.find((c: { id: string }) => c.id === heldId)
      const reads = EXPECTED[role].includes('view_arguments')
      expect(held, role).toMatchObject({ arguments_hidden: !reads, arguments: reads ? { note: 'S3CRET-ARGUMENT' } : null })
      expect(text.includes('S3CRET-ARGUMENT'), role).toBe(reads)
    }
  })

  it('REST with personal access tokens: preflight needs operate; whoami names the person and role', async () => {
    for (const role of ROLES) {
      const res = await fetch(`${server.url}/api/v1/preflight`, {
        method: 'POST', headers: { authorization: `Bearer ${tokens[role]}`, 'content-type': 'application/json' }, body: JSON.stringify({ tools: [{ id: 'notes:read_note' }] }),
      })
      const body = await res.json()
      if (EXPECTED[role].includes('operate')) expect(res.status, role).toBe(200)
      else {
        expect(res.status, role).toBe(403)
        expect(JSON.stringify(body), role).toContain(refusalOf(role, 'operate'))
      }
      const who = await (await fetch(`${server.url}/api/v1/whoami`, { headers: { 'x-api-key': tokens[role] } })).json()
      expect(who.data, role).toEqual({ tier: 'operator', name: `table-${role}`, role, auth: 'token' })
    }
  })
})
