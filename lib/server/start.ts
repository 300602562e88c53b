import 'server-only'
import { createServer, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import next from 'next'
import { getDb } from '@/db/client'
import { startCheckpointer } from '@/db/checkpointer'
import { commitPending } from '@/lib/activity/record'
import { startRetention } from '@/lib/activity/retention'
import { startServerIndex } from '@/lib/activity/server-index'
import { expireCalls } from '@/lib/approvals/calls'
import { ensureOperatorKey } from '@/lib/auth/operator-key'
import { describeError } from '@/lib/errors'
import { boundaryFromEnv } from '@/lib/http/boundary'
import { frontDoor } from '@/lib/http/front-door'
import { keepUnpatchedFetch } from '@/lib/http/upstream-fetch'
import { logLine } from '@/lib/log'
import { projectRoot } from '@/lib/paths'
import { startSupervisor, supervisorOptions, type Supervisor } from '@/lib/upstream/supervisor'

export interface ServeOptions {
  host: string
  port: number
  /** run the upstream runtime (TOOLGATE_RUNTIME=off leaves upstreams alone) */
  runtime: boolean
  dev?: boolean
}

export interface RunningToolgate { url: string; server: Server; close: () => Promise<void> }

/** The host to put in toolgate's own URL (OAuth redirects, printed links): a wildcard bind is reached on loopback. */
function reachableHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1'
  if (host === '::') return '[::1]'
  return host.includes(':') ? `[${host}]` : host
}

/**
 * The toolgate process: one database connection, the upstream runtime, activity retention,
 * and one HTTP listener whose front door serves /mcp* and /api/v1/* itself and hands the
 * dashboard to Next.js. Before it answers anything, the runtime has reset every state a
 * previous process left, so nothing answers from a stale `ready`.
 */
export async function startToolgate(opts: ServeOptions): Promise<RunningToolgate> {
  const db = getDb()
  const newKey = await ensureOperatorKey(db)
  if (newKey) console.log(`toolgate: operator API key (shown once, stored only as a hash): ${newKey}`)

  keepUnpatchedFetch()
  const app = next({ dev: opts.dev ?? false, dir: projectRoot(), hostname: opts.host, port: opts.port, quiet: true })
  await app.prepare()
  const handle = app.getRequestHandler()
  const door = frontDoor({ db: getDb, boundary: boundaryFromEnv(), next: (req, res) => handle(req, res) })
  // Requests that arrive while the runtime is still resetting states wait for it.
  let started!: () => void
  const starting = new Promise<void>((r) => (started = r))
  let serve: RequestListener = (req, res) => void starting.then(() => serve(req, res))
  const server = createServer((req, res) => serve(req, res))
  // slow or stalled clients must not hold sockets forever
  server.requestTimeout = 15 * 60 * 1000
  server.headersTimeout = 30 * 1000

  let supervisor: Supervisor | undefined
  let retention: ReturnType<typeof startRetention> | undefined
  let serverIndex: ReturnType<typeof startServerIndex> | undefined
  const checkpointer = startCheckpointer(db)
  let expiry: NodeJS.Timeout | undefined
  let closing: Promise<void> | undefined
  const close = () => (closing ??= (async () => {
    retention?.stop()
    serverIndex?.stop()
    clearInterval(expiry)
    server.closeIdleConnections()
    const closed = new Promise<void>((r) => server.close(() => r()))
    await supervisor?.stop().catch((e: unknown) => console.error(logLine(`toolgate: runtime stop: ${describeError(e)}`)))
    // in-flight requests get a moment to finish; then the rest are cut
    await Promise.race([closed, new Promise((r) => setTimeout(r, 3_000).unref())])
    server.closeAllConnections()
    await app.close().catch(() => undefined)
    await commitPending(db) // the last calls' outcomes
    await checkpointer.stop()
    db.$client.close()
  })())

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(opts.port, opts.host, () => resolve())
    })
  } catch (e) {
    // nothing may linger: stop what started, then say why
    await close()
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE') throw new Error(`port ${opts.port} on ${opts.host} is already in use: stop what listens there, or pick another with --port`)
    if (code === 'EADDRNOTAVAIL') throw new Error(`cannot listen on ${opts.host}: no such address on this machine (--host)`)
    throw e
  }
  const { port } = server.address() as AddressInfo
  const url = process.env.TOOLGATE_URL ?? `http://${reachableHost(opts.host)}:${port}`

  try {
    if (opts.runtime) supervisor = await startSupervisor(db, supervisorOptions(url))
  } catch (e) {
    await close()
    throw e
  }
  retention = startRetention(db)
  serverIndex = startServerIndex(db)
  // held calls nobody decided on expire after an hour, on the record
  expiry = setInterval(() => void expireCalls(db).catch((e: unknown) => console.error(logLine(`toolgate: expiring held calls: ${describeError(e)}`))), 60_000)
  expiry.unref()
  serve = door
  started()
  return { url, server, close }
}
