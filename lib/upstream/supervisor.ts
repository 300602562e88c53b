import 'server-only'
import { createHash, randomBytes } from 'node:crypto'
import { clearSessionStates, publishSessionState, publishState, putConnectionState, recordSessionState, releaseLease, renewLease, runtimeHolder, takeLease, THIS_HOST, type Published, type RuntimeHolder } from '@/db/queries/connections'
import { managedServers } from '@/db/queries/servers'
import { appendLogs } from '@/db/queries/upstream'
import type { Db } from '@/db/client'
import { isStdio } from '@/db/schema'
import { writeTransaction } from '@/db/write'
import { describeError } from '@/lib/core/errors'
import { logError } from '@/lib/core/log'
import { isolationRuns, type ConnectionState, type Isolation } from '@/lib/core/state'
import type { LoggingLevel } from '@modelcontextprotocol/client'
import { inspectServer, UpstreamConnection, type RuntimeOptions } from './connection'
import { environment } from '@/lib/core/config'

const TICK_MS = 500
const LOG_FLUSH_MS = 250
const RETRY_MIN_MS = 250
const RETRY_MAX_MS = 10_000

export interface SupervisorOptions extends RuntimeOptions {
  /** how long a heartbeat vouches for this runtime; it is renewed every third of that */
  leaseMs: number
  /** an agent's own upstream session (a process, on stdio) stops after this long with nothing in flight */
  sessionIdleMs: number
}

/** The session of the callers without a token (each anonymous request is a new caller: they share one). */
const ANONYMOUS = '\u0000anonymous'
/** The states of an agent's session that preflight tells that agent (a session up again clears them). */
const DOWN: ReadonlySet<ConnectionState> = new Set(['error', 'disconnected', 'pending_auth'])

/**
 * Writes one server's connection state, retrying with backoff when the write fails (another
 * process holding the lock, a read-only file): a failed write is logged and never ends the
 * supervision of that server. Only the newest wanted state is written.
 */
class StatePublisher {
  private wanted: Published | undefined
  private writing = false
  private failures = 0

  constructor(private db: Db, private server: string, private instance: string) {}

  set(p: Published): void {
    this.wanted = p
    if (!this.writing) void this.drain()
  }

  /** Resolves once the newest wanted state is written (or the attempt is given up at shutdown). */
  async drain(): Promise<void> {
    this.writing = true
    while (this.wanted) {
      const p = this.wanted
      this.wanted = undefined
      try {
        await publishState(this.db, this.server, p, this.instance)
        this.failures = 0
      } catch (e) {
        this.failures++
        const pause = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** (this.failures - 1))
        logError(`toolgate: could not publish ${this.server}'s state (${p.state}); retrying in ${pause} ms: ${describeError(e)}`)
        this.wanted ??= p
        await new Promise((r) => setTimeout(r, pause).unref())
      }
    }
    this.writing = false
  }
}

/**
 * The runtime's supervisor: owned by the toolgate server process, it keeps one
 * UpstreamConnection per enabled, non-quarantined server that has a transport. It polls the
 * desired state (two small tables) twice a second, so changes made by the CLI or the
 * dashboard (enable, disable, quarantine, restart, secrets, logins) take effect within ~1 s.
 * Connections run independently: a failing or hanging upstream blocks nobody.
 *
 * It holds the runtime lease: states it publishes carry its instance id, and readers believe
 * them only while the lease is fresh, so a killed server never leaves a `ready` behind.
 */
export class Supervisor {
  readonly instance = `rt_${randomBytes(8).toString('hex')}`
  private connections = new Map<string, UpstreamConnection>()
  /** each server's agent sessions (per_token isolation), by token id */
  private sessions = new Map<string, Map<string, UpstreamConnection>>()
  /**
   * Connections stopped while they held resource subscriptions (a reconnect, a server disabled or
   * quarantined): by server, its main connection and its agents' sessions by token. Each hands
   * them to its successor: the new main connection as it is made, a session once its server is
   * back (revive), so a subscription outlives the reconnect instead of going quiet.
   */
  private retired = new Map<string, { main?: UpstreamConnection; sessions: Map<string, UpstreamConnection> }>()
  /** session states are written in the order they happen */
  private sessionWrites: Promise<void> = Promise.resolve()
  /** servers whose declared session state is being recorded */
  private recording = new Set<string>()
  private publishers = new Map<string, StatePublisher>()
  private timer?: NodeJS.Timeout
  private heartbeat?: NodeJS.Timeout
  private logBuffer: { serverName: string; at: number; stream: 'stderr' | 'event'; line: string }[] = []
  private logTimer?: NodeJS.Timeout
  private stopped = false
  /** inspections started (server + request), so each request is served once */
  private inspections = new Set<string>()
  /** each agent token's log level (logging/setLevel), by token id: its own sessions are told it */
  private logLevels = new Map<string, LoggingLevel>()

  constructor(private db: Db, private opts: SupervisorOptions) {}

  /**
   * Take the lease and reset what a previous process left (before anything answers), then
   * start supervising. A state left `ready` by a crashed process is never read as ready.
   * `prepare` runs once the lease is this process's and before any connection starts: what
   * must only change under the lease (the demo re-pointing its servers) goes there.
   */
  async start(prepare?: () => Promise<void>): Promise<void> {
    await writeTransaction(this.db, (tx) => {
      const now = Date.now()
      // one runtime per database: two would fight over every upstream and every state
      const held = runtimeHolder(tx, now)
      if (held) throw new Error(runtimeTakenMessage(held))
      takeLease(tx, this.leaseValues(now))
      clearSessionStates(tx)
      for (const s of managedServers(tx)) {
        const active = s.enabled && !s.quarantined
        putConnectionState(tx, s.name, {
          state: active ? 'connecting' : 'disconnected',
          detail: active ? 'toolgate started: connecting' : `stopped: the server is ${s.quarantined ? 'quarantined' : 'disabled'}`,
        }, this.instance, now)
      }
    })
    this.heartbeat = setInterval(() => void this.renewLease().catch((e: unknown) =>
      logError(`toolgate: could not renew the runtime lease: ${describeError(e)}`)), Math.max(100, this.opts.leaseMs / 3))
    this.heartbeat.unref()
    try {
      await prepare?.()
    } catch (e) {
      await this.stop()
      throw e
    }
    this.tick()
    this.timer = setInterval(() => this.tick(), TICK_MS)
    this.timer.unref()
  }

  private leaseValues(now: number) {
    return { instance: this.instance, pid: process.pid, host: THIS_HOST, url: this.opts.baseUrl, startedAt: now, heartbeatAt: now, expiresAt: now + this.opts.leaseMs }
  }

  private renewLease(): Promise<void> {
    const { startedAt: _s, ...renewal } = this.leaseValues(Date.now())
    return renewLease(this.db, renewal)
  }

  /**
   * The process is going away: stop every connection, say so, and give up the lease, so
   * nobody reading the database afterwards believes an upstream is still connected.
   */
  async stop(): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    clearInterval(this.timer)
    clearInterval(this.heartbeat)
    const names = [...this.connections.keys()]
    await Promise.all([...this.connections.values(), ...[...this.sessions.values()].flatMap((m) => [...m.values()])].map((c) => c.stop()))
    this.connections.clear()
    this.sessions.clear()
    await this.sessionWrites
    this.flushLogs()
    try {
      await releaseLease(this.db, this.instance, names, 1_000)
    } catch (e) {
      // the lease expires by itself; readers then stop believing this runtime's states
      logError(`toolgate: could not record the runtime's stop: ${describeError(e)}`)
    }
  }

  /** The live connection of a server, when it is connected and discovered. */
  connection(server: string): UpstreamConnection | undefined {
    const c = this.connections.get(server)
    return c?.isReady ? c : undefined
  }

  /**
   * The connection one caller's calls and reads go to: the server's own when its isolation is
   * shared, else the caller's own session — started on first use (the caller waits for it to come
   * up), stopped when idle. Undefined while the server itself is not connected and discovered.
   * `isolation` is the server's setting as the caller read it (a change holds from the next call).
   */
  connectionFor(server: string, tokenId: string | undefined, isolation: Isolation): UpstreamConnection | undefined {
    const main = this.connection(server)
    if (!main || this.isolationOf(isolation, main) === 'shared') return main
    let mine = this.sessions.get(server)
    if (!mine) this.sessions.set(server, (mine = new Map()))
    const key = tokenId ?? ANONYMOUS
    const existing = mine.get(key)
    if (existing) return existing
    const who = tokenId === undefined ? 'the anonymous callers\' session' : `token ${tokenId}'s session`
    let down = false
    let wasReady = false
    const session: UpstreamConnection = new UpstreamConnection(this.db, main.spec, this.opts,
      (state, detail = null, action = null) => {
        // a stopped session's states are no one's
        if (this.sessions.get(server)?.get(key) !== session) return
        // a session that worked and is then refused (a step-up's 403, a revoked token): the login is
        // the server's, so its main connection asks the operator for it
        if (state === 'ready') wasReady = true
        else if (state === 'pending_auth' && wasReady) main.loginNeeded()
        // anonymous callers have no token to tell
        if (tokenId === undefined) return
        if (DOWN.has(state)) down = true
        else if (state === 'ready' && down) down = false
        else return
        this.writeSessionState(server, tokenId, state === 'ready' ? null : { state, detail, action })
      },
      (stream, line) => this.log(server, stream, `[${who}] ${line}`), main)
    mine.set(key, session)
    const retired = this.retired.get(server)?.sessions
    retired?.get(key)?.handOver(session)
    retired?.delete(key)
    const level = tokenId === undefined ? undefined : this.logLevels.get(tokenId)
    if (level) void session.setLogLevel(level)
    session.start()
    return session
  }

  /**
   * An agent set its log level: its own sessions are told at once (and each one it starts later,
   * as it connects). A server shared by every agent is not: one agent's level must not change
   * what another hears, so there toolgate filters that agent's messages itself (lib/mcp/log-level.ts).
   */
  async setLogLevel(tokenId: string, level: LoggingLevel): Promise<void> {
    this.logLevels.set(tokenId, level)
    const own = [...this.sessions].flatMap(([server, mine]) => { const s = mine.get(tokenId); return s ? [[server, s] as const] : [] })
    await Promise.all(own.map(([server, session]) => session.setLogLevel(level).catch((e: unknown) =>
      this.log(server, 'event', `[token ${tokenId}'s session] could not set its log level to ${level}: ${describeError(e)}`))))
  }

  private isolationOf(isolation: Isolation, main: UpstreamConnection): 'shared' | 'per_token' {
    return isolationRuns(isolation, !isStdio(main.spec.transport), main.declaresSessionState)
  }

  private writeSessionState(server: string, tokenId: string, p: Parameters<typeof publishSessionState>[3]): void {
    this.sessionWrites = this.sessionWrites.then(() => publishSessionState(this.db, server, tokenId, p, this.instance)).catch((e: unknown) => {
      logError(`toolgate: could not publish the state of ${server}'s session for token ${tokenId}: ${describeError(e)}`)
    })
  }

  /** Stop a server's agent sessions (all, or those idle past the limit): each starts again on its agent's next use. */
  private stopSessions(server: string, idleOnly: boolean, retire = false): void {
    const mine = this.sessions.get(server)
    if (!mine) return
    const now = Date.now()
    for (const [key, session] of mine) {
      if (idleOnly && session.idleFor(now) < this.opts.sessionIdleMs) continue
      mine.delete(key)
      if (retire) this.retire(server, session, key)
      void session.stop()
      if (key !== ANONYMOUS) this.writeSessionState(server, key, null)
      if (idleOnly) this.log(server, 'event', `[${key === ANONYMOUS ? 'the anonymous callers\' session' : `token ${key}'s session`}] stopped: idle for ${Math.round(this.opts.sessionIdleMs / 1000)} s`)
    }
    if (!mine.size) this.sessions.delete(server)
  }

  /** Keep a stopped connection that held subscriptions for its successor (`key`: an agent's session; none: the main connection). */
  private retire(server: string, conn: UpstreamConnection, key?: string): void {
    if (!conn.watching) return
    let r = this.retired.get(server)
    if (!r) this.retired.set(server, (r = { sessions: new Map() }))
    if (key === undefined) r.main = conn
    else r.sessions.set(key, conn)
  }

  /** The server is back: each retired session's subscriptions go to its agent's session again (or to the server's own connection, under shared isolation). */
  private revive(server: string, isolation: Isolation): void {
    const r = this.retired.get(server)
    if (!r) return
    for (const [key, old] of [...r.sessions]) {
      const successor = this.connectionFor(server, key === ANONYMOUS ? undefined : key, isolation)
      if (!successor) return // not connected yet: the next round
      // a new session took them over as it was made; an existing one (or the server's own) takes them here
      if (r.sessions.get(key) === old) {
        old.handOver(successor)
        r.sessions.delete(key)
      }
    }
    if (!r.main) this.retired.delete(server)
  }

  /** Every server connected and discovered right now. */
  connectedServers(): string[] {
    return [...this.connections].filter(([, c]) => c.isReady).map(([name]) => name)
  }

  private publisher(server: string): StatePublisher {
    let p = this.publishers.get(server)
    if (!p) this.publishers.set(server, (p = new StatePublisher(this.db, server, this.instance)))
    return p
  }

  private log(serverName: string, stream: 'stderr' | 'event', line: string): void {
    this.logBuffer.push({ serverName, at: Date.now(), stream, line })
    this.logTimer ??= setTimeout(() => this.flushLogs(), LOG_FLUSH_MS)
  }

  private flushLogs(): void {
    this.logTimer = undefined
    const batch = this.logBuffer.splice(0)
    appendLogs(this.db, batch).catch((e: unknown) => {
      logError(`toolgate: could not store ${batch.length} upstream log lines: ${describeError(e)}`)
    })
  }

  private tick(): void {
    try {
      this.reconcile()
    } catch (e) {
      logError(`toolgate: supervisor could not read the desired state: ${describeError(e)}`)
    }
  }

  /**
   * A quarantined server is inspected — connected, listed, never served — when an operator asks
   * (inspect_requested_at), and an HTTP server once when it is added: connecting to a URL runs
   * nobody's code, while starting a stdio server runs its code.
   */
  private inspectIfAsked(row: ReturnType<typeof managedServers>[number]): void {
    const asked = row.inspectRequestedAt !== null && row.inspectRequestedAt > (row.inspectedAt ?? 0)
    const onAdd = row.inspectRequestedAt === null && row.inspectedAt === null && !isStdio(row.transport)
    const key = `${row.name}\u0000${row.inspectRequestedAt ?? 'added'}`
    if (!(asked || onAdd) || this.inspections.has(key)) return
    this.inspections.add(key)
    const log = (stream: 'stderr' | 'event', line: string) => this.log(row.name, stream, line)
    log('event', 'inspecting (the server stays quarantined)')
    inspectServer(this.db, row, this.opts, log).catch((e: unknown) => log('event', `inspection failed: ${describeError(e)}`))
  }

  private reconcile(): void {
    if (this.stopped) return
    const wanted = new Set<string>()
    const known = new Set<string>()
    for (const row of managedServers(this.db)) {
      known.add(row.name)
      const current = this.connections.get(row.name)
      if (row.quarantined) this.inspectIfAsked(row)
      if (!row.enabled || row.quarantined) {
        this.stopSessions(row.name, false, true)
        if (current) {
          this.retire(row.name, current)
          void current.stop()
          this.connections.delete(row.name)
          this.publisher(row.name).set({ state: 'disconnected', detail: `stopped: the server is ${row.quarantined ? 'quarantined' : 'disabled'}` })
          this.log(row.name, 'event', `stopped (${row.quarantined ? 'quarantined' : 'disabled'})`)
        }
        continue
      }
      wanted.add(row.name)
      const serverSecretValues = row.secrets
      // anything that changes how to connect, or what toolgate declares and answers (roots,
      // sampling), restarts the connection (a completed login bumps
      // restartRequestedAt; the runtime's own token refreshes must not restart it), and so does
      // a server re-created under the same name (a state load replaces rows and their states)
      const fingerprint = createHash('sha256')
        .update(JSON.stringify([row.transport, serverSecretValues, row.restartRequestedAt, row.createdAt, row.roots, row.sampling]))
        .digest('hex')
      if (current?.spec.fingerprint === fingerprint) {
        // sessions follow their server: none under shared isolation, none idle past the limit
        this.stopSessions(row.name, !current.isReady || this.isolationOf(row.isolation, current) === 'per_token')
        if (current.isReady) {
          this.noteSessionState(row.name, row.sessionState, current.declaresSessionState)
          this.revive(row.name, row.isolation)
        }
        continue
      }
      this.stopSessions(row.name, false, true)
      if (current) {
        this.retire(row.name, current)
        void current.stop()
        this.log(row.name, 'event', 'configuration changed or restart requested: reconnecting')
      }
      const conn = new UpstreamConnection(
        this.db, { name: row.name, transport: row.transport, secrets: serverSecretValues, fingerprint, roots: row.roots, sampling: row.sampling }, this.opts,
        (state, detail = null, action = null, protocol = null) => {
          // a stopped connection must not overwrite its successor's state
          if (this.connections.get(row.name) === conn) this.publisher(row.name).set({ state, detail, action, protocol })
        },
        (stream, line) => this.log(row.name, stream, line),
      )
      this.connections.set(row.name, conn)
      const retired = this.retired.get(row.name)
      if (retired?.main) {
        retired.main.handOver(conn)
        retired.main = undefined
      }
      conn.start()
    }
    for (const [name, conn] of this.connections) {
      if (!wanted.has(name)) {
        this.stopSessions(name, false)
        void conn.stop()
        this.connections.delete(name)
      }
    }
    // a server removed: what its stopped connections held goes with it
    for (const name of this.retired.keys()) if (!known.has(name)) this.retired.delete(name)
  }

  /** Record what the server declared about session state once it differs from the record (auto isolation and the server page read it). */
  private noteSessionState(server: string, recorded: boolean | null, declared: boolean): void {
    if (recorded === declared || this.recording.has(server)) return
    this.recording.add(server)
    recordSessionState(this.db, server, declared)
      .catch((e: unknown) => logError(`toolgate: could not record whether ${server} keeps session state: ${describeError(e)}`))
      .finally(() => this.recording.delete(server))
  }
}

/** Why a second toolgate may not run on a database: who runs there, and the two ways out. */
export function runtimeTakenMessage(h: RuntimeHolder): string {
  return `another toolgate (pid ${h.pid}${h.url ? `, at ${h.url}` : ''}) runs the upstream runtime on this database: stop it first (kill ${h.pid}), or give this one a database of its own (--db or TOOLGATE_DB)`
}

const GLOBAL_KEY = Symbol.for('toolgate.supervisor')

type WithSupervisor = typeof globalThis & { [GLOBAL_KEY]?: Supervisor }

const num = (v: string | undefined, d: number) => (v && Number.isFinite(Number(v)) ? Number(v) : d)

/** The runtime's settings from the environment (tests shorten them). */
export function supervisorOptions(baseUrl: string, env: Record<string, string | undefined> = environment()): SupervisorOptions {
  return {
    baseUrl,
    connectTimeoutMs: num(env.TOOLGATE_CONNECT_TIMEOUT_MS, 20_000),
    pingIntervalMs: num(env.TOOLGATE_PING_INTERVAL_MS, 15_000),
    httpPingIntervalMs: num(env.TOOLGATE_HTTP_PING_INTERVAL_MS, 1_000),
    relistIntervalMs: num(env.TOOLGATE_RELIST_INTERVAL_MS, 300_000),
    backoffBaseMs: num(env.TOOLGATE_BACKOFF_BASE_MS, 1_000),
    backoffMaxMs: num(env.TOOLGATE_BACKOFF_MAX_MS, 30_000),
    leaseMs: num(env.TOOLGATE_RUNTIME_LEASE_MS, 15_000),
    sessionIdleMs: num(env.TOOLGATE_SESSION_IDLE_MS, 600_000),
  }
}

/** Start the one supervisor of this process (the Next.js bundles find it through globalThis). */
export async function startSupervisor(db: Db, opts: SupervisorOptions, prepare?: () => Promise<void>): Promise<Supervisor> {
  const g = globalThis as WithSupervisor
  if (g[GLOBAL_KEY]) return g[GLOBAL_KEY]
  const supervisor = new Supervisor(db, opts)
  await supervisor.start(prepare)
  g[GLOBAL_KEY] = supervisor
  return supervisor
}

export function runningSupervisor(): Supervisor | undefined {
  return (globalThis as WithSupervisor)[GLOBAL_KEY]
}
