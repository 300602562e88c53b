import 'server-only'
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import next from 'next'
import { closeStore, getDb } from '@/db/client'
import { startCheckpointer } from '@/db/checkpointer'
import { checkSecretKey } from '@/db/secrets'
import { commitPending } from '@/lib/activity/record'
import { startRetention } from '@/lib/activity/retention'
import { startServerIndex } from '@/lib/activity/server-index'
import { expireCalls } from '@/lib/approvals/calls'
import { ensureOperatorKey } from '@/lib/admin/operator-key'
import { oidcConfig } from '@/lib/auth/oidc'
import { describeError } from '@/lib/core/errors'
import { boundaryFromEnv } from '@/lib/http/boundary'
import { frontDoor } from './front-door'
import { createListener } from '@/lib/http/listener'
import { keepUnpatchedFetch } from '@/lib/upstream/fetch'
import { logError, stopWritingToClosedOutput } from '@/lib/core/log'
import { projectRoot } from '@/lib/core/paths'
import { startSupervisor, supervisorOptions, type Supervisor } from '@/lib/upstream/supervisor'
import { startTelemetry } from '@/lib/telemetry/start'
import { ownUrl } from './address'
import { watchBuild } from './build'
import { startHeavyWorker } from './heavy'
import { upgradeStoredData } from './database'
import { answerHealth, HEALTH_PATHS, type Phase } from './health'

// CommonJS modules of Next.js, required as Next.js itself requires them (one module instance, one config cache)
const require = createRequire(import.meta.url)
const { default: loadConfig } = require('next/dist/server/config') as typeof import('next/dist/server/config')
const { PHASE_DEVELOPMENT_SERVER, PHASE_PRODUCTION_SERVER } = require('next/constants') as typeof import('next/constants')

/** How long a stopping toolgate lets in-flight requests finish before it cuts them. */
const DRAIN_MS = 3_000

export interface ServeOptions {
  host: string
  port: number
  /** run the upstream runtime (TOOLGATE_RUNTIME=off leaves upstreams alone) */
  runtime: boolean
  dev?: boolean
  /** runs once this process holds the runtime lease, before any upstream connects (the demo's services) */
  beforeRuntime?: () => Promise<void>
}

export interface RunningToolgate {
  url: string
  server: Server
  /** the operator key made on this start (none existed): shown once, by the caller */
  newKey?: string
  close: () => Promise<void>
}

/**
 * The toolgate process: one database connection, the upstream runtime, activity retention,
 * and one HTTP listener whose front door serves /mcp* and /api/v1/* itself and hands the
 * dashboard to Next.js. Before it answers anything, the runtime has reset every state a
 * previous process left, so nothing answers from a stale `ready`.
 */
export async function startToolgate(opts: ServeOptions): Promise<RunningToolgate> {
  stopWritingToClosedOutput()
  const db = getDb(upgradeStoredData)
  checkSecretKey(db) // a missing or wrong key is said now, not by every connection that needs a secret
  oidcConfig() // a misconfigured single sign-on fails the start, naming the variable
  const newKey = await ensureOperatorKey(db)
  // before anything is served: spans, metrics and JSON logs as the environment asks (all off by default)
  const stopTelemetry = await startTelemetry(db)

  keepUnpatchedFetch()
  // Next.js caches next.config per process; loaded quietly here, its own load finds it and does not
  // print "Running next.config.mjs" on every start
  await loadConfig(opts.dev ? PHASE_DEVELOPMENT_SERVER : PHASE_PRODUCTION_SERVER, projectRoot())
  const app = next({ dev: opts.dev ?? false, dir: projectRoot(), hostname: opts.host, port: opts.port, quiet: true })
  await app.prepare()
  const handle = app.getRequestHandler()
  // /mcp and /api/v1 never touch the build; pages do, and fail without a word once it is replaced
  const build = opts.dev ? undefined : watchBuild((why) => logError(`toolgate: ${why}. Dashboard pages answer 503 until toolgate restarts (Ctrl-C, then npm start); /mcp and /api/v1 keep working.`))
  const pages = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const why = build?.broken()
    if (!why) return handle(req, res)
    res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '5' })
    res.end(`toolgate cannot serve this page: ${why}. Restart toolgate (Ctrl-C, then npm start).\n`)
  }
  // the dashboard's overlap scoring runs beside this loop, never on it
  const heavyWork = startHeavyWorker()
  const door = frontDoor({ db: getDb, boundary: boundaryFromEnv(), next: pages })
  // Requests that arrive while the runtime is still resetting states wait for it.
  let started!: () => void
  const starting = new Promise<void>((r) => (started = r))
  let serve: RequestListener = (req, res) => void starting.then(() => serve(req, res))
  let phase: Phase = 'starting'
  const server = createListener((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0]
    if (HEALTH_PATHS.has(path)) return answerHealth(req, res, path, phase, getDb)
    serve(req, res)
  })

  let supervisor: Supervisor | undefined
  let retention: ReturnType<typeof startRetention> | undefined
  let serverIndex: ReturnType<typeof startServerIndex> | undefined
  const checkpointer = startCheckpointer(db)
  let expiry: NodeJS.Timeout | undefined
  let closing: Promise<void> | undefined
  const close = () => (closing ??= (async () => {
    phase = 'draining'
    build?.stop()
    retention?.stop()
    serverIndex?.stop()
    clearInterval(expiry)
    server.closeIdleConnections()
    const closed = new Promise<void>((r) => server.close(() => r()))
    // in-flight requests get a moment to finish, their upstreams still connected; then the rest are cut
    await Promise.race([closed, new Promise((r) => setTimeout(r, DRAIN_MS).unref())])
    server.closeAllConnections()
    await supervisor?.stop().catch((e: unknown) => logError(`toolgate: runtime stop: ${describeError(e)}`))
    await app.close().catch(() => undefined)
    await heavyWork.stop()
    await commitPending(db) // the last calls' outcomes
    // what is buffered is exported; the gauges read the database one last time
    await stopTelemetry().catch((e: unknown) => logError(`toolgate: telemetry stop: ${describeError(e)}`))
    await checkpointer.stop()
    closeStore(db)
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
  const url = ownUrl(opts.host, port)

  try {
    if (opts.runtime) supervisor = await startSupervisor(db, supervisorOptions(url), opts.beforeRuntime)
  } catch (e) {
    await close()
    throw e
  }
  retention = startRetention(db)
  serverIndex = startServerIndex(db)
  // held calls nobody decided on expire after an hour, on the record
  expiry = setInterval(() => void expireCalls(db).catch((e: unknown) => logError(`toolgate: expiring held calls: ${describeError(e)}`)), 60_000)
  expiry.unref()
  serve = door
  phase = 'serving'
  started()
  return { url, server, newKey, close }
}
