import 'server-only'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import next from 'next'
import { getDb } from '@/db/client'
import { startRetention } from '@/lib/activity/retention'
import { ensureOperatorKey } from '@/lib/auth/operator-key'
import { describeError } from '@/lib/errors'
import { boundaryFromEnv } from '@/lib/http/boundary'
import { frontDoor } from '@/lib/http/front-door'
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

/**
 * The toolgate process: one database connection, the upstream runtime, activity retention,
 * and one HTTP listener whose front door serves /mcp* and /api/v1/* itself and hands the
 * dashboard to Next.js. Before it listens, the runtime has reset every state a previous
 * process left, so nothing answers from a stale `ready`.
 */
export async function startToolgate(opts: ServeOptions): Promise<RunningToolgate> {
  const db = getDb()
  const newKey = await ensureOperatorKey(db)
  if (newKey) console.log(`toolgate: operator API key (shown once, stored only as a hash): ${newKey}`)
  const url = process.env.TOOLGATE_URL ?? `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${opts.port}`

  let supervisor: Supervisor | undefined
  if (opts.runtime) supervisor = await startSupervisor(db, supervisorOptions(url))
  const retention = startRetention(db)

  const app = next({ dev: opts.dev ?? false, dir: projectRoot(), hostname: opts.host, port: opts.port, quiet: true })
  await app.prepare()
  const handle = app.getRequestHandler()
  const server = createServer(frontDoor({ db: getDb, boundary: boundaryFromEnv(), next: (req, res) => handle(req, res) }))
  // slow or stalled clients must not hold sockets forever
  server.requestTimeout = 15 * 60 * 1000
  server.headersTimeout = 30 * 1000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port, opts.host, () => resolve())
  })
  const { port } = server.address() as AddressInfo

  let closing: Promise<void> | undefined
  const close = () => (closing ??= (async () => {
    retention.stop()
    server.closeIdleConnections()
    const closed = new Promise<void>((r) => server.close(() => r()))
    await supervisor?.stop().catch((e: unknown) => console.error(logLine(`toolgate: runtime stop: ${describeError(e)}`)))
    // in-flight requests get a moment to finish; then the rest are cut
    await Promise.race([closed, new Promise((r) => setTimeout(r, 3_000).unref())])
    server.closeAllConnections()
    await app.close().catch(() => undefined)
    db.$client.close()
  })())
  return { url: url.replace(`:${opts.port}`, `:${port}`), server, close }
}
