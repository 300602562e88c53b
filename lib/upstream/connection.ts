import 'server-only'
import { Client, LOG_LEVEL_META_KEY, ProtocolError, ProtocolErrorCode, type CallToolResult, type CreateMessageRequest, type CreateMessageResult, type Result, type ElicitResult, type LoggingLevel, type McpSubscription, type SubscriptionFilter, type Transport as SdkTransport } from '@modelcontextprotocol/client'
import type { Db } from '@/db/client'
import { oauthOf } from '@/db/queries/upstream'
import { serverConfig } from '@/db/queries/servers'
import { isStdio, revisionPlan, type ConnectionAction, type ConnectionState, type Root, type Transport } from '@/db/schema'
import { describeError } from '@/lib/core/errors'
import { sleep } from '@/lib/signals'
import { mcpClientOp, type UpstreamPeer } from '@/lib/telemetry/mcp-client'
import pkg from '@/package.json'
import { callTool, InflightCalls, requestAnswering, type AnswerSpec, type CallOptions, type InflightCall } from './calls'
import type { Asker } from '@/lib/core/activity'
import { recordAsk } from '@/lib/activity/call-record'
import type { Sampling } from '@/lib/core/state'
import { RAW_RESULT } from '@/lib/schemas/upstream'
import { applyDiscovery, recordInspectionFailure } from './discovery'
import { listOffered, type Offered } from './listing'
import { describeConnectionError, isTimeout, isTransportFailure, isUnauthorized, outcomeText, type ConnectionOutcome } from './outcome'
import { makeTransport, type Log, type TransportSpec } from './transport'

export interface ConnectionSpec extends TransportSpec {
  fingerprint: string
  roots: Root[]
  sampling: Sampling
}

/** One passed-through request's bounds: its timeout, who answers what its server asks meanwhile (and whose record says so), and the caller leaving. */
export interface UpstreamRequestOptions { timeoutMs: number; onAsk?: InflightCall['onAsk']; asker?: Asker; signal?: AbortSignal }

export interface RuntimeOptions {
  baseUrl: string // toolgate's own URL, for OAuth redirects
  connectTimeoutMs: number
  pingIntervalMs: number
  /** HTTP upstreams are pinged this often: a dead one must stop reading ready within ~2 s (a dead stdio process is noticed at once) */
  httpPingIntervalMs: number
  /** re-list tools this often even without list_changed: a server need not announce a change for it to count */
  relistIntervalMs: number
  backoffBaseMs: number
  backoffMaxMs: number
}

/** A subscriptions/listen stream the server ended is opened again after 1 s, then 2, 4 … up to a minute while it keeps ending. */
const LISTEN_BACKOFF_MS = 1_000
const LISTEN_BACKOFF_MAX_MS = 60_000

/** `protocol`: the revision a ready connection speaks */
type Publish = (state: ConnectionState, detail?: string | null, action?: ConnectionAction | null, protocol?: string | null) => void

/**
 * What toolgate declares to every upstream, inspection included (a server may offer some tools
 * only to clients declaring these, and review must see what the runtime will be served):
 * roots (the ones configured for the server), elicitation in both modes and sampling (put to the
 * caller whose call it is for; lib/mcp/ask-caller.ts passes them on as asked), and the
 * Tasks extension (2026-07-28: a server may answer a call with a task, which calls.ts follows;
 * one that runs a tool only as a task refuses a client without it, -32021). A server its
 * operator withholds sampling from is not told toolgate can sample.
 */
export const CLIENT_CAPABILITIES = { roots: { listChanged: false }, elicitation: { form: {}, url: {} }, sampling: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } } as const
const { sampling: _sampling, ...WITHOUT_SAMPLING } = CLIENT_CAPABILITIES

/**
 * A client for one connection to `transport`, inspection included. A Streamable HTTP server is
 * spoken to at 2026-07-28 when it offers it (`server/discover`, falling back to `initialize`), so
 * the agent is served what the server offers at its newest revision; each connection keeps the
 * revision it negotiated. stdio stays at 2025-11-25: the SDK probes a stdio server by starting a
 * second, short-lived copy of it on every connect (its stderr discarded), which doubles the
 * processes an operator counts per token and runs a server's start-up side effects twice; SSE
 * is a 2025-era transport. An input_required result is answered by toolgate (calls.ts), never by
 * the SDK on its own, so each question goes to the caller of its call.
 */
function upstreamClient(transport: Transport, sampling: Sampling): Client {
  return new Client({ name: 'toolgate', version: pkg.version }, {
    capabilities: sampling === 'relay' ? CLIENT_CAPABILITIES : WITHOUT_SAMPLING,
    versionNegotiation: { mode: revisionPlan(transport) === 'negotiated' ? 'auto' : 'legacy' },
    inputRequired: { autoFulfill: false },
  })
}

/** Whether a connection speaks 2026-07-28 (no ping, no logging/setLevel, no resources/subscribe: listen and per-request _meta instead). */
const isModern = (client: Client) => client.getProtocolEra() === 'modern'

/**
 * Inspect a quarantined server: connect, list every tool, store the definitions for review
 * (withheld: the server stays quarantined, nothing is served or called), disconnect. Starting
 * a stdio server runs its code, so this happens only when an operator asks — HTTP servers are
 * inspected when added.
 */
export async function inspectServer(db: Db, spec: TransportSpec & Pick<ConnectionSpec, 'sampling'>, opts: Pick<RuntimeOptions, 'baseUrl' | 'connectTimeoutMs'>, log: Log): Promise<number> {
  // the runtime's capabilities, so the same tools are listed; nothing is asked of anyone during an inspection
  const client = upstreamClient(spec.transport, spec.sampling)
  client.setRequestHandler('roots/list', () => ({ roots: [] }))
  client.setRequestHandler('elicitation/create', () => ({ action: 'decline' }))
  if (spec.sampling === 'relay') client.setRequestHandler('sampling/createMessage', () => { throw new ProtocolError(ProtocolErrorCode.InternalError, 'toolgate is inspecting this server: nobody is there to sample for') })
  try {
    await client.connect(makeTransport(db, spec, opts.baseUrl, log), { timeout: opts.connectTimeoutMs })
    const { tools, definitions } = await listOffered(client, opts.connectTimeoutMs)
    await applyDiscovery(db, spec.name, tools, { inspect: true, definitions })
    log('event', `inspected: ${tools.length} tools and ${definitions.length} instructions, prompts and resources listed for review (the server stays quarantined)`)
    return tools.length
  } catch (e) {
    // the inspection's own failure is what the caller reports, even if keeping it fails too
    await recordInspectionFailure(db, spec.name, describeError(e)).catch(() => undefined)
    throw e
  } finally {
    await client.close().catch(() => undefined)
  }
}

/** Connection states a session waiting to be used reads as its failure (it stops waiting). */
const FAILED: ReadonlySet<ConnectionState> = new Set(['error', 'disconnected', 'pending_auth'])

/**
 * One upstream: connect, discover, stay connected, reconnect with capped exponential backoff.
 * It waits (and publishes why) rather than retrying when only an operator can help: missing
 * secrets (set_secret) or a needed login (pending_auth).
 *
 * A server's own connection discovers what it offers and publishes its state. An agent token's
 * session (`of` its server's connection) only serves that token's calls and reads: it discovers
 * nothing (the server's connection does), and its tools' task rules are the server's.
 */
export class UpstreamConnection {
  private stopController = new AbortController()
  private client?: Client
  private ready = false
  /** how long before a subscriptions/listen stream the server ended is opened again (doubling; reset on connect) */
  private listenBackoffMs = LISTEN_BACKOFF_MS
  private discovering: Promise<void> | null = null
  private rediscoverAgain = false
  /** ends the current connection (a reconnect follows); set while one is open */
  private fail?: (outcome: ConnectionOutcome) => void
  private lastStderr = ''
  private transport?: SdkTransport
  /** the requests in flight (and, for a while, ones abandoned): where a server's elicitations, log messages and progress go */
  private inflight = new InflightCalls()
  /** the tools this server runs only as tasks (execution.taskSupport "required"), as last discovered */
  private ownTaskRequired = new Set<string>()
  /** callers waiting for a session to come up: told each state it publishes */
  private waiters = new Set<(state: ConnectionState, detail: string | null) => void>()
  /** requests of this connection in flight now, and when the last one ended (a session idles out) */
  private busy = 0
  private usedAt = Date.now()
  /** the level its agent set (logging/setLevel): told the server on every connect, and at once when it changes */
  private logLevel?: LoggingLevel
  /** who hears of each subscribed resource's updates, by the URI the server knows it by */
  private watchers = new Map<string, Set<() => void>>()
  /** the connection that took this one's resource subscriptions over (handOver) */
  private successor?: UpstreamConnection
  /** 2026-07-28: the subscriptions/listen stream list changes and resource updates arrive on, and the last (re)opening of it */
  private subscription?: McpSubscription
  private listening: Promise<void> = Promise.resolve()

  /** how what the server asks during a call is answered: its roots, and each question settled by its sampling setting and recorded */
  readonly answers: AnswerSpec

  constructor(
    private db: Db, readonly spec: ConnectionSpec, private opts: RuntimeOptions,
    private publishState: Publish, private log: Log, readonly of?: UpstreamConnection,
  ) {
    this.answers = {
      roots: spec.roots,
      asks: { sampling: () => serverConfig(db, spec.name)?.sampling ?? spec.sampling, note: (note, asker) => recordAsk(db, spec.name, note, asker) },
    }
  }

  get isReady(): boolean {
    return this.ready
  }

  /** How long this connection has had nothing in flight (0 while something is, or a resource subscription is heard through it). */
  idleFor(now = Date.now()): number {
    return this.busy || this.watchers.size ? 0 : now - this.usedAt
  }

  /** Whether the server declared state that lives in a session: resource subscriptions. */
  get declaresSessionState(): boolean {
    const caps = this.ready ? this.client?.getServerCapabilities() : undefined
    return !!caps?.resources?.subscribe
  }

  private get taskRequired(): ReadonlySet<string> {
    return this.of ? this.of.ownTaskRequired : this.ownTaskRequired
  }

  private publish: Publish = (state, detail = null, action = null, protocol = null) => {
    this.publishState(state, detail, action, protocol)
    for (const w of this.waiters) w(state, detail)
  }

  /**
   * The client to send on: at once when connected; a session not yet up (started on first use,
   * or reconnecting) is waited for up to the connect timeout, and its failure is the error.
   */
  private async live(): Promise<Client> {
    if (this.client && this.ready) return this.client
    if (!this.of || this.stopped) throw new Error(`server "${this.spec.name}" is not connected`)
    await new Promise<void>((resolve, reject) => {
      const done = (e?: Error) => { clearTimeout(timer); this.waiters.delete(waiter); if (e) reject(e); else resolve() }
      const waiter = (state: ConnectionState, detail: string | null) => {
        if (state === 'ready') done()
        else if (FAILED.has(state)) done(new Error(`this agent's session with server "${this.spec.name}" could not start: ${detail ?? state}`))
      }
      const timer = setTimeout(() => done(new Error(`this agent's session with server "${this.spec.name}" did not start within ${this.opts.connectTimeoutMs} ms`)), this.opts.connectTimeoutMs)
      this.waiters.add(waiter)
    })
    if (!this.client || !this.ready) throw new Error(`server "${this.spec.name}" is not connected`)
    return this.client
  }

  /** Count a request in flight for as long as it runs (a session with one in flight never idles out). */
  private async using<T>(fn: () => Promise<T>): Promise<T> {
    this.busy++
    try {
      return await fn()
    } finally {
      this.busy--
      this.usedAt = Date.now()
    }
  }

  start(): void {
    void this.run()
  }

  /** An agent's session: the log level its agent set, for the server to apply to this session. */
  async setLogLevel(level: LoggingLevel): Promise<void> {
    this.logLevel = level
    if (this.client && this.ready) await this.applyLogLevel(this.client)
  }

  /** Whether anyone hears of a resource's updates through this connection. */
  get watching(): boolean {
    return this.watchers.size > 0
  }

  /**
   * Give this connection's resource subscriptions to the one replacing it (a reconnect for a
   * changed configuration, a restart, a login, a server enabled again): it asks its server for
   * them as it comes up, as after any reconnect, and each subscriber's stop reaches it.
   */
  handOver(to: UpstreamConnection): void {
    for (const [uri, heard] of this.watchers) {
      let there = to.watchers.get(uri)
      if (!there) to.watchers.set(uri, (there = new Set()))
      for (const h of heard) there.add(h)
    }
    this.watchers.clear()
    this.successor = to
  }

  private owner(): UpstreamConnection {
    let at: UpstreamConnection = this
    while (at.successor) at = at.successor
    return at
  }

  /**
   * Hear of `uri`'s updates (notifications/resources/updated) from this connection's session:
   * the server is asked to subscribe when the first one asks, again after every reconnect (a new
   * session holds none), and to unsubscribe once the last one stops. Resolves to the stop.
   */
  async watchResource(uri: string, onUpdated: () => void): Promise<() => void> {
    let watching = this.watchers.get(uri)
    const first = !watching
    if (!watching) this.watchers.set(uri, (watching = new Set()))
    watching.add(onUpdated)
    const stop = () => {
      // wherever the subscription lives now: here, or on the connection that replaced this one
      const at = this.owner()
      const heard = at.watchers.get(uri)
      if (!heard?.delete(onUpdated) || heard.size) return
      at.watchers.delete(uri)
      if (!at.client || !at.ready) return
      if (isModern(at.client)) void at.listenOn(at.client).catch(() => undefined)
      else void at.requestOn(at.client, 'resources/unsubscribe', { uri }, { timeoutMs: at.opts.connectTimeoutMs }).catch(() => undefined)
    }
    try {
      if (first) {
        await this.using(async () => {
          const client = await this.live()
          await (isModern(client) ? this.listenOn(client) : this.requestOn(client, 'resources/subscribe', { uri }, { timeoutMs: this.opts.connectTimeoutMs }))
        })
      }
    } catch (e) {
      stop()
      throw e
    }
    return stop
  }

  /**
   * Tell the server the log level, when one was set and the server logs at all (it declares
   * logging). 2026-07-28 has no logging/setLevel: every request carries the level (levelMeta).
   */
  private async applyLogLevel(client: Client): Promise<void> {
    if (this.logLevel === undefined || !client.getServerCapabilities()?.logging || isModern(client)) return
    await client.setLoggingLevel(this.logLevel, { timeout: this.opts.connectTimeoutMs })
  }

  /**
   * A request's _meta with its log level, where the revision carries it per request (2026-07-28):
   * the one the request brought (its agent's 2026-07-28 request), else the one its agent set.
   * A 2025-11-25 server is not sent the key (toolgate filters the agent's messages itself).
   */
  private levelMeta(client: Client, meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    if (!isModern(client)) {
      if (meta?.[LOG_LEVEL_META_KEY] === undefined) return meta
      const { [LOG_LEVEL_META_KEY]: _level, ...rest } = meta
      return rest
    }
    return this.logLevel === undefined || meta?.[LOG_LEVEL_META_KEY] !== undefined ? meta : Object.assign({}, meta, { [LOG_LEVEL_META_KEY]: this.logLevel })
  }

  /**
   * 2026-07-28: (re)open the subscriptions/listen stream with what this connection hears of — list
   * changes (a server's own connection: it discovers) and the watched resources' updates; their
   * notifications reach the handlers set for 2025-11-25. The new stream opens before the old
   * closes; reopenings run one at a time, so none is left open unseen.
   */
  private listenOn(client: Client): Promise<void> {
    const next = this.listening.then(() => this.relisten(client))
    this.listening = next.catch(() => undefined)
    return next
  }

  private async relisten(client: Client): Promise<void> {
    const caps = client.getServerCapabilities()
    const filter: SubscriptionFilter = {
      ...(!this.of && caps?.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(!this.of && caps?.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(!this.of && caps?.resources?.listChanged ? { resourcesListChanged: true } : {}),
      ...(this.watchers.size ? { resourceSubscriptions: [...this.watchers.keys()] } : {}),
    }
    const before = this.subscription
    const now = Object.keys(filter).length ? await client.listen(filter, { timeout: this.opts.connectTimeoutMs }) : undefined
    this.subscription = now
    // the server ending it (or the stream dropping) is no failure, but watched resources are heard
    // of only on it: it is opened again, after a wait that grows while it keeps ending
    void now?.closed.then((how) => {
      if (how === 'local' || this.subscription !== now) return
      const wait = this.listenBackoffMs
      this.listenBackoffMs = Math.min(wait * 2, LISTEN_BACKOFF_MAX_MS)
      this.log('event', `the subscriptions/listen stream ended (${how}): opening it again in ${wait} ms`)
      setTimeout(() => {
        if (this.client !== client || !this.ready || this.subscription !== now) return // reconnected, stopped, or opened again meanwhile
        this.listenOn(client).catch((e: unknown) => this.log('event', `could not listen for changes again (subscriptions/listen): ${describeError(e)}`))
      }, wait).unref()
    })
    await before?.close()
  }

  async stop(): Promise<void> {
    this.stopController.abort()
    this.ready = false
    await this.client?.close().catch(() => undefined)
  }

  /**
   * Route one tools/call to the upstream and pass its result through as given. The caller has
   * already checked the gates. A failure of the connection itself (not an error the server
   * answered) ends the connection at once, so the server reads unhealthy and is reconnected.
   * A tool the server runs only as a task is run as one, so every client can call it.
   */
  callTool(tool: string, args: Record<string, unknown> | undefined, opts: CallOptions): Promise<CallToolResult> {
    return this.using(async () => this.callOn(await this.live(), tool, args, opts))
  }

  private async callOn(client: Client, tool: string, args: Record<string, unknown> | undefined, opts: CallOptions): Promise<CallToolResult> {
    try {
      const meta = this.levelMeta(client, opts.meta)
      // 2026-07-28 has no tasks/result: a server there makes a task of a call itself (calls.ts follows it)
      return await callTool(client, this.inflight, this, tool, args, meta === opts.meta ? opts : Object.assign({}, opts, { meta }), this.taskRequired.has(tool) && !isModern(client))
    } catch (e) {
      // a token the server no longer accepts, or one without a scope this call needs (step-up):
      // the login is the server's, so an agent session's refusal asks its main connection for it
      if (isUnauthorized(e)) (this.of ?? this).loginNeeded()
      else if (isTransportFailure(e) && !opts.signals?.some((s) => s?.aborted)) this.fail?.({ kind: 'closed', why: `a call failed: ${describeConnectionError(e)}` })
      throw e
    }
  }

  /** The server refused this connection's credentials (or an agent session's call): ask for a login. */
  loginNeeded(): void {
    this.fail?.({ kind: 'unauthorized' })
  }

  /** What the server offers (resources, their subscriptions, prompts) and its instructions, once connected. */
  get offers(): { resources: boolean; subscribe: boolean; prompts: boolean; instructions: string | undefined } {
    const caps = (this.ready ? this.client : this.of?.client)?.getServerCapabilities()
    return { resources: !!caps?.resources, subscribe: !!caps?.resources?.subscribe, prompts: !!caps?.prompts, instructions: this.ready ? this.client?.getInstructions() : undefined }
  }

  /**
   * One resources/*, prompts/* or completion request, passed through; a broken connection is
   * noticed as for calls. What a 2026-07-28 server asks during it (input_required, as for a
   * tools/call) is put to its caller through `onAsk`: without one an elicitation is declined, a sampling refused.
   * `signal`: the caller went away, so the server is told to stop (notifications/cancelled).
   */
  request(method: 'resources/list' | 'resources/templates/list' | 'resources/read' | 'prompts/list' | 'prompts/get' | 'completion/complete', params: Record<string, unknown>, opts: UpstreamRequestOptions): Promise<Record<string, unknown>> {
    return this.using(async () => this.requestOn(await this.live(), method, params, opts))
  }

  private async requestOn(client: Client, method: string, params: Record<string, unknown>, { timeoutMs, onAsk, asker, signal }: UpstreamRequestOptions): Promise<Record<string, unknown>> {
    // counted as in flight: what the server sends meanwhile belongs to no single call
    const entry: InflightCall = { onAsk, asker }
    this.inflight.add(entry)
    let answered = true
    const op = mcpClientOp(this, method, typeof params.name === 'string' ? params.name : undefined, params as { _meta?: Record<string, unknown> })
    try {
      const meta = this.levelMeta(client, params._meta as Record<string, unknown> | undefined)
      const result = await requestAnswering(client, method, meta === params._meta ? params : Object.assign({}, params, { _meta: meta }), { timeoutMs, signal }, entry, this.answers)
      op?.end(result)
      return result
    } catch (e) {
      op?.end(undefined, e)
      answered = !isTimeout(e)
      if (isTransportFailure(e)) this.fail?.({ kind: 'closed', why: `a request failed: ${describeConnectionError(e)}` })
      throw e
    } finally {
      this.inflight.release(entry, answered)
    }
  }

  /** This server as telemetry names its peer (asked only while telemetry is on). */
  peer(): UpstreamPeer {
    const http = this.transport as { sessionId?: string; protocolVersion?: string } | undefined
    return { name: this.spec.name, transport: this.spec.transport, sessionId: http?.sessionId, protocolVersion: http?.protocolVersion }
  }

  private get stopped() {
    return this.stopController.signal.aborted
  }

  private missingSecrets(): string[] {
    return (this.spec.transport.secrets ?? []).filter((n) => !(n in this.spec.secrets))
  }

  private makeTransport(): SdkTransport {
    this.lastStderr = ''
    return (this.transport = makeTransport(this.db, this.spec, this.opts.baseUrl, (stream, line) => {
      if (stream === 'stderr') this.lastStderr = line
      this.log(stream, line)
    }, this.inflight.onStreamRequest))
  }

  /** Why the connection ended, as specifically as the transport lets us say. */
  private endedBecause(): string {
    if (!isStdio(this.spec.transport)) return 'the upstream connection ended'
    // the SDK keeps its child process private; its exit code is worth reading all the same
    const code = (this.transport as unknown as { _process?: { exitCode: number | null } } | undefined)?._process?.exitCode
    return `the server process exited${typeof code === 'number' ? ` with code ${code}` : ''}${this.stderrTail()}`
  }

  /** A stdio server's last stderr line, as the end of a reason (it often says why the process gave up). */
  private stderrTail(): string {
    return isStdio(this.spec.transport) && this.lastStderr ? `; its last stderr line: ${this.lastStderr.slice(0, 300)}` : ''
  }

  private async run(): Promise<void> {
    const signal = this.stopController.signal
    for (let attempt = 0; !this.stopped; attempt++) {
      const missing = this.missingSecrets()
      if (missing.length) {
        const detail = `missing secret${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: set with toolgate upstream set-secret ${this.spec.name} <NAME>`
        this.publish('error', detail, 'set_secret')
        this.log('event', detail)
        return // the supervisor restarts this connection when a secret is set
      }
      // a retry after a failed start keeps showing that failure: a server that never starts is
      // unhealthy with its reason, never "connecting" between attempts
      if (attempt === 0) this.publish('connecting')
      this.log('event', `connecting (attempt ${attempt + 1})`)
      const outcome = await new Promise<ConnectionOutcome>((resolve) => {
        void this.connectAndServe(resolve).catch((e: unknown) => resolve({ kind: 'failed', why: describeError(e) }))
      })
      this.ready = false
      await this.client?.close().catch(() => undefined)
      this.client = undefined
      if (this.stopped) return
      switch (outcome.kind) {
        case 'stopped':
          return
        case 'unauthorized': {
          const scope = oauthOf(this.db, this.spec.name)?.challengedScope
          this.publish('pending_auth', `the server asks for an OAuth login${scope ? ` with scope "${scope}"` : ''}: toolgate upstream login ${this.spec.name}`, 'login')
          this.log('event', 'the server requires an OAuth login')
          return // the supervisor restarts this connection when tokens are saved
        }
        case 'closed':
        case 'failed': {
          // a connection that was up starts its backoff afresh; one that never came up backs off further
          if (outcome.kind === 'closed') attempt = 0
          const text = outcomeText(outcome)
          // the runtime retries by itself; an operator's restart starts afresh at once (a new process, a new session)
          this.publish(outcome.kind === 'closed' ? 'disconnected' : 'error', text, 'restart')
          const backoff = Math.min(this.opts.backoffMaxMs, this.opts.backoffBaseMs * 2 ** attempt)
          this.log('event', `${text}; reconnecting in ${backoff} ms`)
          await sleep(backoff, signal)
        }
      }
    }
  }

  /** Connect, discover, then serve until the connection ends; done(outcome) exactly once. */
  private async connectAndServe(done: (outcome: ConnectionOutcome) => void): Promise<void> {
    // roots: the ones configured for this server (none unless the operator set some)
    // elicitation and sampling: put to the caller whose call it is for, when its client can answer
    const client = upstreamClient(this.spec.transport, this.spec.sampling)
    const { asks } = this.answers
    client.setRequestHandler('roots/list', () => ({ roots: this.spec.roots }))
    client.setRequestHandler('elicitation/create', (req, ctx) => this.inflight.ask({ method: 'elicitation/create', params: req.params }, ctx.mcpReq.id, asks, this.log) as Promise<ElicitResult>)
    if (this.spec.sampling === 'relay') client.setRequestHandler('sampling/createMessage', (req, ctx) => this.inflight.ask({ method: 'sampling/createMessage', params: req.params }, ctx.mcpReq.id, asks, this.log) as Promise<CreateMessageResult>)
    // withheld, the SDK takes no handler for a capability not declared: a server that samples
    // all the same is refused by the same gate (and recorded), not told "method not found"
    else client.fallbackRequestHandler = async (req, ctx) => {
      if (req.method !== 'sampling/createMessage') throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found')
      return this.inflight.ask({ method: 'sampling/createMessage', params: req.params as CreateMessageRequest['params'] }, ctx.mcpReq.id, asks, this.log) as Promise<Result>
    }
    client.setNotificationHandler('notifications/message', (n) => {
      const call = this.inflight.callFor(n.params._meta)
      if (call?.onLog) call.onLog(n.params)
      else this.log('event', `log (${n.params.level}${n.params.logger ? `, ${n.params.logger}` : ''}): ${(typeof n.params.data === 'string' ? n.params.data : JSON.stringify(n.params.data)).slice(0, 500)}`)
    })
    client.setNotificationHandler('notifications/progress', (n) => {
      const { progressToken, ...p } = n.params
      this.inflight.progressed(String(progressToken), p)
    })
    this.client = client
    let finished = false
    const finish = (outcome: ConnectionOutcome) => {
      if (!finished) { finished = true; done(outcome) }
    }
    this.fail = (outcome) => {
      this.ready = false
      finish(outcome)
    }
    // settled a turn later: a failing connect rejects with the better reason (refused where, DNS, TLS, HTTP status)
    client.onclose = () => void setImmediate(() => finish({ kind: this.ready ? 'closed' : 'failed', why: this.endedBecause() }))
    client.onerror = (e) => {
      this.log('event', `transport error: ${describeError(e)}`)
      // the SDK may close the transport before connect() rejects: settle the reason here
      if (isUnauthorized(e)) finish({ kind: 'unauthorized' })
    }
    try {
      await client.connect(this.makeTransport(), { timeout: this.opts.connectTimeoutMs })
      if (this.stopped) return finish({ kind: 'stopped' })
      // a session serves its agent; what the server offers is its server connection's to discover
      if (!this.of) {
        this.publish('discovering')
        await this.discover()
        for (const changed of ['notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/list_changed'] as const) {
          client.setNotificationHandler(changed, () => this.rediscover())
        }
      }
      // a new session (or process) starts at the server's default level and with no subscriptions: its agent's go first
      await this.applyLogLevel(client).catch((e: unknown) => this.log('event', `could not set the log level its agent chose (${this.logLevel}): ${describeError(e)}`))
      client.setNotificationHandler('notifications/resources/updated', (n) => { for (const heard of this.watchers.get(n.params.uri) ?? []) heard() })
      this.subscription = undefined
      if (isModern(client)) await this.listenOn(client).catch((e: unknown) => this.log('event', `could not listen for changes (subscriptions/listen): ${describeError(e)}`))
      else for (const uri of this.watchers.keys()) {
        await client.request({ method: 'resources/subscribe', params: { uri } }, RAW_RESULT, { timeout: this.opts.connectTimeoutMs })
          .catch((e: unknown) => this.log('event', `could not subscribe again to ${uri}: ${describeError(e)}`))
      }
      this.ready = true
      this.listenBackoffMs = LISTEN_BACKOFF_MS
      // the revision this connection speaks (an HTTP server's is negotiated), published with its state
      const revision = client.getNegotiatedProtocolVersion() ?? null
      this.publish('ready', null, null, revision)
      this.log('event', `ready (MCP ${revision ?? 'revision unknown'})`)
    } catch (e) {
      return finish(isUnauthorized(e) ? { kind: 'unauthorized' } : { kind: 'failed', why: `${describeConnectionError(e)}${this.stderrTail()}` })
    }
    // Liveness: a ping notices dropped connections and expired logins between calls; a periodic
    // re-list notices definitions changed without list_changed (stateless HTTP servers never send it).
    // 2026-07-28 has no ping: server/discover is its cheapest request, answered from what the
    // server declares, and needs a live connection (and a valid login) as a ping does.
    const alive = (timeout: number) => isModern(client) ? client.discover({ timeout }) : client.ping({ timeout })
    let listedAt = Date.now()
    // (an agent's session is pinged at the slower pace: there may be one per token)
    const pingEvery = !isStdio(this.spec.transport) && !this.of ? this.opts.httpPingIntervalMs : this.opts.pingIntervalMs
    while (!finished && !this.stopped) {
      await sleep(this.of ? pingEvery : Math.min(pingEvery, this.opts.relistIntervalMs), this.stopController.signal)
      if (finished || this.stopped) break
      if (!this.of && Date.now() - listedAt >= this.opts.relistIntervalMs) {
        listedAt = Date.now()
        this.rediscover()
      }
      try {
        await alive(Math.min(this.opts.connectTimeoutMs, Math.max(2 * pingEvery, 1_000)))
      } catch (e) {
        // a refused or broken connection is dead now; a slow answer (a busy machine) gets one
        // more, longer chance before the server is called unhealthy
        const slow = isTimeout(e)
        const again = slow ? await alive(this.opts.connectTimeoutMs).then(() => undefined, (e2: unknown) => e2) : e
        if (again !== undefined) finish(isUnauthorized(again) ? { kind: 'unauthorized' } : { kind: 'closed', why: `${isModern(client) ? 'server/discover' : 'ping'} failed: ${describeConnectionError(again)}` })
      }
    }
    finish({ kind: 'stopped' })
  }

  /** Everything the server offers, every page, then stored (the rug-pull guard). */
  private async discover(): Promise<void> {
    await this.store(await listOffered(this.client!, this.opts.connectTimeoutMs))
  }

  private async store({ tools: all, definitions }: Offered): Promise<void> {
    const out = await applyDiscovery(this.db, this.spec.name, all, { definitions })
    this.ownTaskRequired = new Set(all.filter((t) => t.execution?.taskSupport === 'required').map((t) => t.name))
    this.log('event', `discovered ${all.length} tools${out.baseline ? ' (approved as the baseline)' : ''}` +
      `${out.added.length && !out.baseline ? `; new: ${out.added.join(', ')}` : ''}${out.changed.length ? `; changed: ${out.changed.join(', ')}` : ''}${out.gone.length ? `; gone: ${out.gone.join(', ')}` : ''}`)
  }

  /** Re-discover on list_changed; bursts collapse into one extra pass. */
  private rediscover(): void {
    if (this.discovering) {
      this.rediscoverAgain = true
      return
    }
    this.discovering = (async () => {
      do {
        this.rediscoverAgain = false
        // this connection's: a failure must end it, not one opened since
        const { client, fail } = this
        if (!client) break
        let listed: Offered
        try {
          listed = await listOffered(client, this.opts.connectTimeoutMs)
        } catch (e) {
          // What the server offers cannot be read (an error, or a listing that stalls), so
          // nothing can hold its tools to their approvals: it is not ready until a discovery
          // completes. Meanwhile agents are served the approved definitions, and calls wait.
          this.log('event', `re-discovery failed: ${describeConnectionError(e)}`)
          fail?.({ kind: 'closed', why: `listing its tools failed: ${describeConnectionError(e)}` })
          break
        }
        try {
          await this.store(listed)
        } catch (e) {
          // a local failure (a foreign lock): the next pass stores it
          this.log('event', `re-discovery could not be stored: ${describeError(e)}`)
        }
      } while (this.rediscoverAgain && !this.stopped)
      this.discovering = null
    })()
  }
}
