import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { freshDb } from '@/tests/helpers/db'
import { freePort } from '@/tests/helpers/server'

const root = path.resolve(import.meta.dirname, '..', '..')
const KEY = 'tg_op_log_pipe_test_key_00000000'
let child: ChildProcess | undefined
afterAll(() => {
  if (child?.pid && child.exitCode === null) process.kill(-child.pid, 'SIGKILL')
})

/** CPU time the process has used so far, in clock ticks (utime + stime, /proc/<pid>/stat). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(fields[11]) + Number(fields[12]) // fields 14 and 15 of the whole line
}

/** A request whose client goes away before its body is complete: toolgate logs a line about it. */
function abandonedRequest(port: number): Promise<void> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1', () => {
      sock.write(`POST /api/v1/preflight HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nx-api-key: ${KEY}\r\nContent-Length: 1000\r\n\r\n{"tools":`)
      setTimeout(() => sock.destroy(), 200)
    })
    sock.on('close', () => resolve())
  })
}

it('when the process reading its log exits, toolgate stops writing logs instead of spinning on EPIPE, and keeps answering', async () => {
  const { file } = freshDb()
  const port = await freePort()
  child = spawn(process.execPath, [path.join(root, 'bin/toolgate.mjs'), 'serve', '--host', '127.0.0.1', '--port', String(port), '--no-demo'], {
    cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', TOOLGATE_RUNTIME: 'off', TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY },
  })
  let output = ''
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  await expect.poll(() => output, { timeout: 60_000, interval: 100 }).toContain('toolgate is running at')
  // the log's reader goes away
  child.stdout!.destroy()
  child.stderr!.destroy()
  for (let i = 0; i < 5; i++) await abandonedRequest(port)
  const whoami = () => fetch(`http://127.0.0.1:${port}/api/v1/whoami`, { headers: { 'x-api-key': KEY } }).then((r) => r.status)
  expect(await whoami()).toBe(200)

  // over a few seconds of doing nothing, an idle toolgate uses next to no CPU (the EPIPE loop used ~27% of a core)
  const pid = child.pid!
  const ticksPerSecond = 100 // USER_HZ on Linux
  const before = cpuTicks(pid)
  const started = Date.now()
  await new Promise((r) => setTimeout(r, 4_000))
  const used = (cpuTicks(pid) - before) / ticksPerSecond / ((Date.now() - started) / 1000)
  expect(used, `CPU share while idle: ${(used * 100).toFixed(1)}%`).toBeLessThan(0.08)
  expect(await whoami()).toBe(200)
}, 120_000)
