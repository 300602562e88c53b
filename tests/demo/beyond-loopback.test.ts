import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDb } from '@/db/client'
import { listActivity } from '@/db/queries/activity'
import { DEMO_AGENT_TOKEN } from '@/lib/state/demo'
import { runProcess } from '@/tests/helpers/cli'

// `npm start -- --host 0.0.0.0` on a first start. The server binds beyond loopback only inside a
// network namespace of its own (unshare -n: a loopback device and nothing else), so no network
// ever reaches it; everything it prints and answers is seen from inside that namespace.
const root = path.resolve(import.meta.dirname, '..', '..')

describe('serve bound beyond loopback', () => {
  it('warns, prints where it is reachable, and revokes the demo\'s well-known tokens instead of serving them', { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-exposed-'))
    const db = path.join(dir, 'toolgate.db')
    const script = `
      set -e
      ip link set lo up
      node bin/toolgate.mjs serve --host 0.0.0.0 --port 3999 > ${dir}/out.log 2>&1 &
      pid=$!
      # wait for the banner (or the server's end), then ask with the demo agent token
      until grep -q 'toolgate is running' ${dir}/out.log || ! kill -0 $pid 2>/dev/null; do sleep 0.2; done
      node -e "fetch('http://127.0.0.1:3999/api/v1/whoami', { headers: { authorization: 'Bearer ${DEMO_AGENT_TOKEN}' } }).then((r) => console.log('demo token:', r.status))"
      kill -TERM $pid; wait $pid || true`
    const r = await runProcess('unshare', ['-n', 'bash', '-c', script], { cwd: root, env: { TOOLGATE_DB: db, TOOLGATE_RUNTIME: 'off', TOOLGATE_API_KEY: 'tg_op_exposed_test_key_0000000', NEXT_TELEMETRY_DISABLED: '1' } })
    const out = readFileSync(path.join(dir, 'out.log'), 'utf8')
    expect(r.code, `${r.stderr}\n${out}`).toBe(0)
    expect(r.stdout).toContain('demo token: 401')
    expect(out).toContain('WARNING: listening on 0.0.0.0, not loopback: anyone who can reach this machine can reach toolgate:')
    // the namespace has no network interface: said so, instead of a loopback address that misleads
    expect(out).toContain('http://<this machine\'s address>:3999 (no external network interface found right now)')
    expect(out).toContain('The demo\'s well-known agent tokens were revoked (demo-agent, nightly, notes-bot)')
    expect(out).toContain('Tokens & profiles → Create token')
    expect(out).not.toContain(DEMO_AGENT_TOKEN)

    const after = openDb(db)
    const revoked = listActivity(after, { type: 'token.revoked' })
    expect(revoked.map((x) => [x.actor, (x.data as { target: string }).target]).sort()).toEqual([['toolgate:serve', 'demo-agent'], ['toolgate:serve', 'nightly'], ['toolgate:serve', 'notes-bot']])
    after.$client.close()
  })
})
