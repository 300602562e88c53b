import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..', '..')

/*
 * Ports for servers a test starts come from below the kernel's ephemeral range (32768-60999 here),
 * each vitest worker from a slice of its own: a port handed out here and bound a moment later by a
 * child process cannot meanwhile be taken by anyone's listen(0) or outgoing connection (which draw
 * from the ephemeral range), nor by a test in another worker. A port still bound is skipped.
 */
const SLICE = 2000
const sliceBase = 20_000 + ((Number(process.env.VITEST_POOL_ID ?? 1) - 1) % 6) * SLICE
let nextOffset = Math.floor(Math.random() * SLICE)

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer()
    srv.once('error', () => resolve(false))
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)))
  })
}

export async function freePort(): Promise<number> {
  for (let tries = 0; tries < SLICE; tries++) {
    const port = sliceBase + (nextOffset++ % SLICE)
    if (await bindable(port)) return port
  }
  throw new Error(`no free port in 127.0.0.1:${sliceBase}-${sliceBase + SLICE - 1}`)
}

export interface RunningServer {
  url: string
  port: number
  /** the server's process (toolgate serve runs it in-process) */
  pid: number
  log: () => string
  stop: () => Promise<void>
  /** kill -9 the whole process group (a crash), and wait until it is gone */
  crash: () => Promise<void>
}

/**
 * Start the real toolgate server (`toolgate serve`: the front door, the runtime, Next.js) on a
 * loopback port, in its own process group. Needs a build: `npm test` makes one.
 * `demo`: as `npm start` runs it (the demo state on an empty database, the demo's upstreams).
 */
export async function startServer(env: Record<string, string>, opts: { demo?: boolean } = {}): Promise<RunningServer> {
  const distDir = process.env.NEXT_DIST_DIR || '.next'
  if (!existsSync(path.join(root, distDir, 'BUILD_ID'))) {
    throw new Error(`no Next.js build in ${distDir}: run \`npm run build\` (npm test does it) before the integration tests`)
  }
  const port = await freePort()
  let output = ''
  // the real entry point (what `npm start` runs), without the demo unless asked: tests load their own state
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'bin/toolgate.mjs'), 'serve', '--host', '127.0.0.1', '--port', String(port), ...(opts.demo ? [] : ['--no-demo'])], {
    cwd: root,
    // the upstream runtime stays off unless a test asks for it (TOOLGATE_RUNTIME: 'on')
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', TOOLGATE_RUNTIME: 'off', PORT: String(port), ...env },
    detached: true, // own process group
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const url = `http://127.0.0.1:${port}`
  const stop = async () => {
    if (child.exitCode !== null || child.pid === undefined) return
    const exited = new Promise((r) => child.once('exit', r))
    try {
      process.kill(-child.pid, 'SIGTERM')
    } catch {
      return
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
    if (child.exitCode === null) try { process.kill(-child.pid, 'SIGKILL') } catch { /* gone */ }
  }
  const crash = async () => {
    if (child.exitCode !== null || child.pid === undefined) return
    const exited = new Promise((r) => child.once('exit', r))
    process.kill(-child.pid, 'SIGKILL')
    await exited
  }
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`toolgate serve exited with ${child.exitCode}:\n${output}`)
    try {
      // toolgate's own answer, serving: not merely something answering on the port
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) })
      if (res.ok && ((await res.json()) as { phase?: string }).phase === 'serving') break
    } catch { /* not up yet */ }
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`toolgate serve did not answer within 60 s:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return { url, port, pid: child.pid!, log: () => output, stop, crash }
}
