import { createHash } from 'node:crypto'
import { isNotNull } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { serverSecrets, servers } from '../../db/schema'
import { describeError } from '../errors'
import { UpstreamConnection, type RuntimeOptions } from './connection'
import { appendLogs, publishState } from './publish'

const TICK_MS = 500
const LOG_FLUSH_MS = 250

/**
 * The runtime's supervisor: runs inside the toolgate server process and keeps one
 * UpstreamConnection per enabled, non-quarantined server that has a transport. It polls the
 * desired state (two small tables) twice a second, so changes made by the CLI or the
 * dashboard (enable, disable, quarantine, restart, secrets, logins) take effect within ~1 s.
 * Connections run independently: a failing or hanging upstream blocks nobody.
 */
export class Supervisor {
  private connections = new Map<string, UpstreamConnection>()
  private timer?: NodeJS.Timeout
  private logBuffer: { serverName: string; at: number; stream: 'stderr' | 'event'; line: string }[] = []
  private logTimer?: NodeJS.Timeout

  constructor(private db: Db, private opts: RuntimeOptions) {}

  start(): void {
    this.tick()
    this.timer = setInterval(() => this.tick(), TICK_MS)
    this.timer.unref()
  }

  async stop(): Promise<void> {
    clearInterval(this.timer)
    await Promise.all([...this.connections.values()].map((c) => c.stop()))
    this.connections.clear()
    this.flushLogs()
  }

  /**
   * The process is going away: say so before it does (synchronously), so nobody reading the
   * database afterwards believes an upstream is still connected.
   */
  shutdown(): void {
    clearInterval(this.timer)
    for (const [name, conn] of this.connections) {
      void conn.stop()
      publishState(this.db, name, 'disconnected', 'toolgate stopped')
    }
    this.connections.clear()
    this.flushLogs()
  }

  /** The live connection of a server, when it is connected and discovered. */
  connection(server: string): UpstreamConnection | undefined {
    const c = this.connections.get(server)
    return c?.isReady ? c : undefined
  }

  private log(serverName: string, stream: 'stderr' | 'event', line: string): void {
    this.logBuffer.push({ serverName, at: Date.now(), stream, line })
    this.logTimer ??= setTimeout(() => this.flushLogs(), LOG_FLUSH_MS)
  }

  private flushLogs(): void {
    this.logTimer = undefined
    const batch = this.logBuffer.splice(0)
    try {
      appendLogs(this.db, batch)
    } catch (e) {
      console.error(`toolgate: could not store ${batch.length} upstream log lines: ${describeError(e)}`)
    }
  }

  private tick(): void {
    try {
      this.reconcile()
    } catch (e) {
      console.error(`toolgate: supervisor could not read the desired state: ${describeError(e)}`)
    }
  }

  private reconcile(): void {
    const rows = this.db.select().from(servers).where(isNotNull(servers.transport)).all()
    const secrets = new Map<string, Record<string, string>>()
    for (const s of this.db.select().from(serverSecrets).all()) {
      secrets.set(s.serverName, { ...(secrets.get(s.serverName) ?? {}), [s.name]: s.value })
    }
    const wanted = new Set<string>()
    for (const row of rows) {
      const current = this.connections.get(row.name)
      if (!row.enabled || row.quarantined) {
        if (current) {
          void current.stop()
          this.connections.delete(row.name)
          publishState(this.db, row.name, 'disconnected', `stopped: the server is ${row.quarantined ? 'quarantined' : 'disabled'}`)
          this.log(row.name, 'event', `stopped (${row.quarantined ? 'quarantined' : 'disabled'})`)
        }
        continue
      }
      wanted.add(row.name)
      const serverSecretValues = secrets.get(row.name) ?? {}
      // anything that changes how to connect restarts the connection (a completed login bumps
      // restartRequestedAt; the runtime's own token refreshes must not restart it)
      const fingerprint = createHash('sha256')
        .update(JSON.stringify([row.transport, serverSecretValues, row.restartRequestedAt]))
        .digest('hex')
      if (current?.spec.fingerprint === fingerprint) continue
      if (current) {
        void current.stop()
        this.log(row.name, 'event', 'configuration changed or restart requested: reconnecting')
      }
      const conn = new UpstreamConnection(
        this.db, { name: row.name, transport: row.transport!, secrets: serverSecretValues, fingerprint }, this.opts,
        (state, detail = null, action = null) => {
          // a stopped connection must not overwrite its successor's state
          if (this.connections.get(row.name) === conn) publishState(this.db, row.name, state, detail, action)
        },
        (stream, line) => this.log(row.name, stream, line),
      )
      this.connections.set(row.name, conn)
      conn.start()
    }
    for (const [name, conn] of this.connections) {
      if (!wanted.has(name)) {
        void conn.stop()
        this.connections.delete(name)
      }
    }
  }
}

const GLOBAL_KEY = Symbol.for('toolgate.supervisor')
type WithSupervisor = typeof globalThis & { [GLOBAL_KEY]?: Supervisor }

/** Start the one supervisor of this process (route bundles share it through globalThis). */
export function startSupervisor(db: Db, env: NodeJS.ProcessEnv = process.env): Supervisor {
  const g = globalThis as WithSupervisor
  if (g[GLOBAL_KEY]) return g[GLOBAL_KEY]
  const num = (v: string | undefined, d: number) => (v && Number.isFinite(Number(v)) ? Number(v) : d)
  const supervisor = new Supervisor(db, {
    baseUrl: env.TOOLGATE_URL ?? `http://${env.HOSTNAME && env.HOSTNAME !== '0.0.0.0' ? env.HOSTNAME : '127.0.0.1'}:${env.PORT ?? '3000'}`,
    connectTimeoutMs: num(env.TOOLGATE_CONNECT_TIMEOUT_MS, 20_000),
    pingIntervalMs: num(env.TOOLGATE_PING_INTERVAL_MS, 15_000),
    backoffBaseMs: num(env.TOOLGATE_BACKOFF_BASE_MS, 1_000),
    backoffMaxMs: num(env.TOOLGATE_BACKOFF_MAX_MS, 30_000),
  })
  g[GLOBAL_KEY] = supervisor
  supervisor.start()
  return supervisor
}

export function runningSupervisor(): Supervisor | undefined {
  return (globalThis as WithSupervisor)[GLOBAL_KEY]
}
