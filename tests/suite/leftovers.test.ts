import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runProcess } from '@/tests/helpers/cli'
import { FILE_VAR, RUN_VAR, killLeftovers, suiteProcesses } from '@/tests/helpers/processes'
import { waitFor } from '@/tests/upstream/harness'

// No process outlives the suite: the suite finds its own processes by their environment marker,
// never by name, so another checkout's servers on the same machine are left alone.

const root = path.resolve(import.meta.dirname, '..', '..')
const alive = (pid: number) => { try { process.kill(pid, 0); return true } catch { return false } }
const started: number[] = []
afterAll(() => { for (const pid of started) try { process.kill(pid, 'SIGKILL') } catch { /* gone */ } })

/** A detached `node` that runs until killed, with its own child; both carry `env`. */
async function detachedPair(env: Record<string, string>): Promise<{ leader: number; child: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-leftovers-'))
  const script = `const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' });
    require('node:fs').writeFileSync(${JSON.stringify(path.join(dir, 'child'))}, String(c.pid)); setInterval(() => {}, 1e9)`
  const p = spawn(process.execPath, ['-e', script], { detached: true, stdio: 'ignore', env: { ...process.env, ...env } })
  p.unref()
  started.push(p.pid!)
  const child = Number(await waitFor('the child started', () => { try { return readFileSync(path.join(dir, 'child'), 'utf8') } catch { return '' } }))
  started.push(child)
  return { leader: p.pid!, child }
}

describe('the suite\'s own processes', () => {
  it('are found by their run marker and killed with their process group; another run\'s are not touched', async () => {
    const ours = `run_test_${process.pid}_ours`
    const mine = await detachedPair({ [RUN_VAR]: ours, [FILE_VAR]: 'tests/some.test.ts' })
    const theirs = await detachedPair({ [RUN_VAR]: `run_test_${process.pid}_another_checkout` })

    const found = suiteProcesses(ours)
    expect(found.map((p) => p.pid).sort()).toEqual([mine.leader, mine.child].sort())
    expect(found.find((p) => p.pid === mine.leader)).toMatchObject({ pgid: mine.leader, file: 'tests/some.test.ts', command: expect.stringContaining('setInterval') })
    expect(suiteProcesses(ours, { file: 'tests/other.test.ts' })).toEqual([])

    killLeftovers(found)
    await waitFor('our leader and its child gone', () => !alive(mine.leader) && !alive(mine.child))
    expect(suiteProcesses(ours)).toEqual([])
    expect(alive(theirs.leader) && alive(theirs.child)).toBe(true)
  })

  it('a test file that leaves one behind fails, naming the file and the process, and the process is killed', async () => {
    const pidFile = path.join(mkdtempSync(path.join(tmpdir(), 'toolgate-leftovers-')), 'pid')
    // a run of its own (its own marker): its guards see only what it started
    const env: Record<string, string> = { LEAKY_PID_FILE: pidFile, [RUN_VAR]: '' }
    const r = await runProcess(process.execPath, [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'tests/fixtures/leaky/vitest.config.ts'], { cwd: root, env })
    const pid = Number(readFileSync(pidFile, 'utf8'))
    started.push(pid)
    const out = r.stdout + r.stderr
    expect(r.code, out).toBe(1)
    expect(out).toContain('tests/fixtures/leaky/leaves-a-server.fixture.ts left 1 process running after its tests (killed now)')
    expect(out).toContain(`pid ${pid} (started by tests/fixtures/leaky/leaves-a-server.fixture.ts): ${process.execPath} -e setInterval(() => {}, 1e9) // a forgotten server`)
    await waitFor('the forgotten server gone', () => !alive(pid))
  })
})
