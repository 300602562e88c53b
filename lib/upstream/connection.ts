import 'server-only'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import {
  ElicitRequestSchema, ErrorCode, ListRootsRequestSchema, RELATED_TASK_META_KEY, LoggingMessageNotificationSchema, McpError, ProgressNotificationSchema, ToolListChangedNotificationSchema,
  PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema,
  type CallToolResult, type ElicitRequest, type ElicitResult, type LoggingLevel, type LoggingMessageNotification, type Progress,
} from '@modelcontextprotocol/sdk/types.js'
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { z } from 'zod'
import type { Db } from '@/db/client'
import { isStdio, type ConnectionAction, type ConnectionState, type Root, type Transport } from '@/db/schema'
import { storedOfWire, wireOf, type WireDefinition } from '@/lib/core/definition'
import { describeError } from '@/lib/core/errors'
import { projectRoot } from '@/lib/core/paths'
import pkg from '@/package.json'
import { applyDiscovery, recordInspectionFailure } from './discovery'
import type { DiscoveredDefinition } from '@/lib/approvals/server-definitions'
import { DbOAuthProvider, CALLBACK_PATH } from './oauth'
import { oauthOf } from '@/db/queries/upstream'
import { upstreamFetch } from './fetch'
import { refreshOnce } from './refresh-once'
import { tapResponse, type OnStreamRequest } from './stream-requests'
import { mcpClientOp, type UpstreamPeer } from '@/lib/telemetry/mcp-client'
import { following, releasingFetch } from '@/lib/signals'
import { describeConnectionError, isTransportFailure, isUnauthorized, outcomeText, type ConnectionOutcome } from './outcome'

export interface ConnectionSpec {
  name: string
  transport: Transport
  secrets: Record<string, string>
  fingerprint: string
  roots: Root[]
}

/** How one call may run: its timeout (restarted by progress), where progress goes, what cancels it. */
export interface CallOptions {
  timeoutMs: number
  onProgress?: (p: Progress) => void
  /** the caller's answer to an elicitation the server sends during the call (absent: declined); `ended` aborts when the call is over */
  onElicit?: (params: ElicitRequest['params'], ended: AbortSignal) => Promise<ElicitResult>
  /** log messages the server sends during the call */
  onLog?: (params: LoggingMessageNotification['params']) => void
  signal?: AbortSignal
  /** the client's request _meta, passed on (the progress token is toolgate's own) */
  meta?: Record<string, unknown>
}

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

type Publish = (state: ConnectionState, detail?: string | null, action?: ConnectionAction | null) => void
type Log = (stream: 'stderr' | 'event', line: string) => void

const json = z.record(z.string(), z.unknown())
/**
 * tools/list as the upstream sent it. The SDK's own listTools parses tools with a schema that
 * drops fields it does not know; toolgate stores and serves every field as given, so it reads
 * the raw page and checks only what it relies on.
 */
const rawToolsPage = z.looseObject({
  tools: z.array(z.looseObject({
    name: z.string().min(1),
    title: z.string().optional(),
    description: z.string().optional(),
    inputSchema: json,
    outputSchema: json.optional(),
    annotations: json.optional(),
    execution: json.optional(),
    icons: z.array(z.unknown()).optional(),
    _meta: json.optional(),
  })),
  nextCursor: z.string().optional(),
})

/** Every tool of an upstream, following each nextCursor page, every served field kept as given. */
export async function listAllTools(client: Client, timeoutMs: number): Promise<WireDefinition[]> {
  const all: WireDefinition[] = []
  let cursor: string | undefined
  do {
    const page = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, rawToolsPage, { timeout: timeoutMs })
    // the served fields only, each as given (through the stored shape, which names them all)
    for (const t of page.tools) all.push(wireOf(storedOfWire(t)))
    cursor = page.nextCursor
  } while (cursor)
  return all
}

const rawPage = z.looseObject({ nextCursor: z.string().optional() })
/** A listing's pages are followed this far at most: a server cursoring forever is cut off, not followed. */
const MAX_DEFINITION_PAGES = 100

/** Every item of one of a server's listings (prompts/list, …), every page, each object kept as given. */
async function listAllOf(client: Client, method: string, key: string, timeoutMs: number): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = []
  let cursor: string | undefined
  for (let page = 0; page < MAX_DEFINITION_PAGES; page++) {
    let r: Record<string, unknown>
    try {
      r = await client.request({ method, params: cursor ? { cursor } : {} }, rawPage, { timeout: timeoutMs })
    } catch (e) {
      // offered as a capability, but not this listing (resources without templates): none of it
      if (e instanceof McpError && e.code === ErrorCode.MethodNotFound) return all
      throw e
    }
    const items = r[key]
    if (Array.isArray(items)) for (const it of items) if (it && typeof it === 'object' && !Array.isArray(it)) all.push(it as Record<string, unknown>)
    cursor = typeof r.nextCursor === 'string' ? r.nextCursor : undefined
    if (!cursor) break
  }
  return all
}

/**
 * What a server gives agents besides its tools, each kept as given for review and pinning:
 * its instructions, its prompts, its resources and resource templates (where it offers them).
 */
export async function listDefinitions(client: Client, timeoutMs: number): Promise<DiscoveredDefinition[]> {
  const caps = client.getServerCapabilities()
  const out: DiscoveredDefinition[] = []
  const instructions = client.getInstructions()
  if (instructions) out.push({ kind: 'instructions', key: '', definition: { instructions } })
  const keyed = (kind: DiscoveredDefinition['kind'], field: string) => (items: Record<string, unknown>[]) => {
    for (const definition of items) if (typeof definition[field] === 'string') out.push({ kind, key: definition[field] as string, definition })
  }
  if (caps?.prompts) keyed('prompt', 'name')(await listAllOf(client, 'prompts/list', 'prompts', timeoutMs))
  if (caps?.resources) {
    keyed('resource', 'uri')(await listAllOf(client, 'resources/list', 'resources', timeoutMs))
    keyed('resource_template', 'uriTemplate')(await listAllOf(client, 'resources/templates/list', 'resourceTemplates', timeoutMs))
  }
  return out
}

/** Everything a server offers, as one discovery stores it (whole, or not at all). */
export interface Offered { tools: WireDefinition[]; definitions: DiscoveredDefinition[] }

async function listOffered(client: Client, timeoutMs: number): Promise<Offered> {
  return { tools: await listAllTools(client, timeoutMs), definitions: await listDefinitions(client, timeoutMs) }
}

/** The SDK transport for a server: its process (stdio, stderr into the log) or its URL (with OAuth). */
function makeTransport(db: Db, spec: Pick<ConnectionSpec, 'name' | 'transport' | 'secrets'>, opts: Pick<RuntimeOptions, 'baseUrl'>, log: Log, onStreamRequest?: OnStreamRequest): SdkTransport {
  const t = spec.transport
  const secretValues = Object.fromEntries((t.secrets ?? []).map((n) => [n, spec.secrets[n]]))
  if (isStdio(t)) {
    const transport = new StdioClientTransport({
      command: t.command, args: t.args ?? [], cwd: t.cwd ?? projectRoot(), stderr: 'pipe',
      env: { ...getDefaultEnvironment(), ...(t.env ?? {}), ...secretValues },
    })
    let partial = ''
    transport.stderr?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n')
      partial = lines.pop() ?? ''
      for (const l of lines) if (l.trim()) log('stderr', l)
    })
    return transport
  }
  // OAuth once there is something to use (a login's tokens, or client credentials): a server that
  // challenges before any login reads pending_auth, and nothing registers with its
  // authorization server until an operator starts a login
  const oauth = oauthOf(db, spec.name)
  const authProvider = oauth?.tokens || oauth?.grant === 'client_credentials' ? new DbOAuthProvider(db, spec.name, t.url, new URL(CALLBACK_PATH, opts.baseUrl).href, false) : undefined
  // the transport gives every request one signal: each request follows it only while it lasts
  const fetch = releasingFetch(serverFetch(new URL(t.url), { ...(t.headers ?? {}), ...secretValues }, authProvider, onStreamRequest))
  return t.type === 'sse'
    ? new SSEClientTransport(new URL(t.url), { authProvider, fetch })
    : new StreamableHTTPClientTransport(new URL(t.url), { authProvider, fetch })
}

/**
 * An HTTP server's fetch: its configured headers (secrets among them) go to its own origin only,
 * and any other request (its OAuth issuer's token endpoint) goes through the OAuth rule without them.
 * A call's response stream is read for the server requests it carries (which call each is for).
 * Concurrent refreshes of one token are one request (refresh-once.ts).
 */
function serverFetch(server: URL, headers: Record<string, string>, oauth: DbOAuthProvider | undefined, onStreamRequest: OnStreamRequest | undefined): typeof fetch {
  return refreshOnce((input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    if (url.origin !== server.origin) return oauth ? oauth.fetch(input, init) : upstreamFetch(input, init)
    const merged = new Headers(init?.headers)
    for (const [k, v] of Object.entries(headers)) merged.set(k, v)
    return upstreamFetch(input, { ...init, headers: merged }).then((r) => tapResponse(init?.body, r, onStreamRequest))
  })
}

const RAW_RESULT = z.looseObject({})
/** A task as an upstream reports it (tasks/get, and tools/call with a task) */
const upstreamTask = z.looseObject({ taskId: z.string(), status: z.string(), statusMessage: z.string().optional(), pollInterval: z.number().optional() })
export const TERMINAL_TASK_STATES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled'])
const UPSTREAM_TASK_TTL_MS = 24 * 60 * 60 * 1000
/** How long an abandoned request still counts as in flight (the server may still be working on it). */
const ABANDONED_LINGER_MS = 10_000

/**
 * What toolgate declares to every upstream, inspection included (a server may offer some tools
 * only to clients declaring these, and review must see what the runtime will be served):
 * roots (the ones configured for the server), elicitation in both modes (put to the caller whose
 * call it is for; lib/mcp/elicitation.ts passes form and URL requests on as asked).
 */
export const CLIENT_CAPABILITIES = { roots: { listChanged: false }, elicitation: { form: {}, url: {} } } as const

/**
 * A request in flight: where what the server sends during it goes (nowhere once abandoned), and
 * what tells that it is for this call: the progress token toolgate gave it, the upstream task it
 * runs as, the server requests its response stream carried (HTTP).
 */
interface InflightCall {
  onElicit?: (params: ElicitRequest['params']) => Promise<ElicitResult>
  onLog?: CallOptions['onLog']
  token?: string
  taskId?: string
  serverRequests?: Set<string | number>
}
/** The longest a timer can wait (setTimeout's limit): the SDK's own timeout, out of the way of toolgate's. */
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * Inspect a quarantined server: connect, list every tool, store the definitions for review
 * (withheld: the server stays quarantined, nothing is served or called), disconnect. Starting
 * a stdio server runs its code, so this happens only when an operator asks — HTTP servers are
 * inspected when added.
 */
export async function inspectServer(db: Db, spec: Pick<ConnectionSpec, 'name' | 'transport' | 'secrets'>, opts: Pick<RuntimeOptions, 'baseUrl' | 'connectTimeoutMs'>, log: Log): Promise<number> {
  // the runtime's capabilities, so the same tools are listed; nothing is asked of anyone during an inspection
  const client = new Client({ name: 'toolgate', version: pkg.version }, { capabilities: CLIENT_CAPABILITIES })
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [] }))
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'decline' }))
  try {
    await client.connect(makeTransport(db, spec, opts, log), { timeout: opts.connectTimeoutMs })
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

/** Sleep, waking early when the connection stops; the abort listener never outlives the sleep. */
const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  const wake = () => { clearTimeout(t); signal.removeEventListener('abort', wake); resolve() }
  const t = setTimeout(wake, ms)
  signal.addEventListener('abort', wake, { once: true })
})

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
  private discovering: Promise<void> | null = null
  private rediscoverAgain = false
  /** ends the current connection (a reconnect follows); set while one is open */
  private fail?: (outcome: ConnectionOutcome) => void
  private lastStderr = ''
  private transport?: SdkTransport
  private calls = 0
  /** progress listeners of the calls in flight, by the progress token toolgate gave each */
  private progress = new Map<string, (p: Progress) => void>()
  /** the requests in flight (and, for a while, ones abandoned): where a server's elicitations and log messages go */
  private inflight = new Set<InflightCall>()
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

  constructor(
    private db: Db, readonly spec: ConnectionSpec, private opts: RuntimeOptions,
    private publishState: Publish, private log: Log, readonly of?: UpstreamConnection,
  ) {}

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

  private publish: Publish = (state, detail = null, action = null) => {
    this.publishState(state, detail, action)
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
      if (!watching.delete(onUpdated) || watching.size) return
      this.watchers.delete(uri)
      if (this.client && this.ready) void this.requestOn(this.client, 'resources/unsubscribe', { uri }, this.opts.connectTimeoutMs).catch(() => undefined)
    }
    try {
      if (first) await this.using(async () => this.requestOn(await this.live(), 'resources/subscribe', { uri }, this.opts.connectTimeoutMs))
    } catch (e) {
      stop()
      throw e
    }
    return stop
  }

  /** Tell the server the log level, when one was set and the server logs at all (it declares logging). */
  private async applyLogLevel(client: Client): Promise<void> {
    if (this.logLevel === undefined || !client.getServerCapabilities()?.logging) return
    await client.setLoggingLevel(this.logLevel, { timeout: this.opts.connectTimeoutMs })
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
    // toolgate keeps the timeout itself (restarted by progress) and its own progress tokens: the
    // SDK drops a progress notification that arrives in the same read as the result, and an
    // agent should see every step
    const token = `tg_${++this.calls}`
    // one signal stops the call: the caller's, or this call's own clock running out
    const stop = following(opts.signal)
    let timedOut = false
    let timer: NodeJS.Timeout | undefined
    const restartClock = () => {
      clearTimeout(timer)
      timer = setTimeout(() => { timedOut = true; stop.controller.abort() }, opts.timeoutMs)
    }
    restartClock()
    const progressed = (p: Progress) => {
      restartClock()
      opts.onProgress?.(p)
    }
    // a question waits for a person: the call's clock stops meanwhile, and the question lapses with
    // the call (made only when a question comes: an abort costs, and most calls ask nothing)
    let ended: AbortController | undefined
    const call: InflightCall = {
      token,
      onLog: opts.onLog,
      onElicit: opts.onElicit && (async (params) => {
        clearTimeout(timer)
        ended ??= new AbortController()
        try {
          return await opts.onElicit!(params, ended.signal)
        } finally {
          if (!ended.signal.aborted) restartClock()
        }
      }),
    }
    this.progress.set(token, progressed)
    this.inflight.add(call)
    const signal = stop.controller.signal
    const params = { name: tool, arguments: args ?? {}, _meta: { ...opts.meta, progressToken: token } as Record<string, unknown> }
    // its CLIENT span and duration; the span's context rides in params._meta (undefined while telemetry is off)
    const op = mcpClientOp(this, 'tools/call', tool, params)
    try {
      const result = this.taskRequired.has(tool)
        ? await this.runTask(client, params, progressed, signal, call)
        : await client.request({ method: 'tools/call', params }, RAW_RESULT, { timeout: MAX_TIMER_MS, signal }) as CallToolResult
      op?.end(result)
      return result
    } catch (e) {
      op?.end(undefined, timedOut ? new McpError(ErrorCode.RequestTimeout, 'timed out') : e)
      if (timedOut) throw new McpError(ErrorCode.RequestTimeout, `the call took longer than ${opts.timeoutMs} ms without progress`)
      // a token the server no longer accepts, or one without a scope this call needs (step-up):
      // the login is the server's, so an agent session's refusal asks its main connection for it
      if (isUnauthorized(e)) (this.of ?? this).loginNeeded()
      else if (isTransportFailure(e) && !opts.signal?.aborted) this.fail?.({ kind: 'closed', why: `a call failed: ${describeConnectionError(e)}` })
      throw e
    } finally {
      clearTimeout(timer)
      stop.release()
      ended?.abort()
      this.progress.delete(token)
      this.release(call, !signal.aborted)
    }
  }

  /** The server refused this connection's credentials (or an agent session's call): ask for a login. */
  loginNeeded(): void {
    this.fail?.({ kind: 'unauthorized' })
  }

  /**
   * The call a server's elicitation or log message belongs to: the one running the task its
   * `_meta` names (related-task), or (HTTP) the one whose response stream carried it; failing
   * both, the one request in flight, when there is only one (stdio says nothing more).
   */
  private callFor(meta: Record<string, unknown> | undefined, requestId?: string | number): InflightCall | undefined {
    const taskId = (meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined)?.taskId
    for (const call of this.inflight) {
      if (typeof taskId === 'string' && call.taskId === taskId) return call
      if (requestId !== undefined && call.serverRequests?.has(requestId)) return call
    }
    return this.inflight.size === 1 ? this.inflight.values().next().value : undefined
  }

  /** A server request arrived on the response stream of the call given `token` (HTTP). */
  private onStreamRequest: OnStreamRequest = (requestId, token) => {
    for (const call of this.inflight) if (call.token === token) (call.serverRequests ??= new Set()).add(requestId)
  }

  /**
   * A request is over. One the server answered leaves at once; one abandoned (cancelled, timed
   * out) may still be running upstream, so it stays counted, without a caller, for a while:
   * what the server sends for it must not be taken for another caller's.
   */
  private release(call: InflightCall, answered: boolean): void {
    if (answered) return void this.inflight.delete(call)
    call.onElicit = undefined
    call.onLog = undefined
    setTimeout(() => this.inflight.delete(call), ABANDONED_LINGER_MS).unref()
  }

  /** An elicitation from the server: asked of the caller whose call it is for, else declined. */
  private async elicit(params: ElicitRequest['params'], requestId: string | number): Promise<ElicitResult> {
    const call = this.callFor(params._meta, requestId)
    if (!call?.onElicit) {
      this.log('event', `declined an elicitation ("${String(params.message).slice(0, 80)}"): ${call ? 'its call\'s client cannot answer elicitations' : this.inflight.size ? `${this.inflight.size} calls are in flight, and nothing says which one it is for` : 'no call is in flight'}`)
      return { action: 'decline' }
    }
    return call.onElicit(params)
  }

  /**
   * A call of a tool the server runs only as a task (execution.taskSupport "required"): create
   * the task, follow it with tasks/get (each new status is progress), then fetch its result.
   * Stopping early cancels the task upstream.
   */
  private async runTask(client: Client, params: Record<string, unknown>, progressed: (p: Progress) => void, signal: AbortSignal, call: InflightCall): Promise<CallToolResult> {
    const ask = async <T extends z.ZodType>(method: string, p: Record<string, unknown>, schema: T) =>
      schema.parse(await client.request({ method, params: p }, RAW_RESULT, { timeout: MAX_TIMER_MS, signal })) as z.infer<T>
    // the upstream forgets a task its ttl after creating it, finished or not: ask for long enough
    let task = (await ask('tools/call', { ...params, task: { ttl: UPSTREAM_TASK_TTL_MS } }, z.looseObject({ task: upstreamTask }))).task
    const taskId = task.taskId
    // what the server sends for the task names it (related-task): it is this call's
    call.taskId = taskId
    let steps = 0
    try {
      // a task that needs input asks through tasks/result (which waits for the end): go there at once
      while (!TERMINAL_TASK_STATES.has(task.status) && task.status !== 'input_required') {
        await sleep(Math.min(Math.max(task.pollInterval ?? 1_000, 100), 2_000), signal)
        const now = await ask('tasks/get', { taskId }, upstreamTask)
        // a new message is the news; a new status under the same message (e.g. completed) is told as the status
        if (now.statusMessage !== task.statusMessage) progressed({ progress: ++steps, message: now.statusMessage ?? now.status })
        else if (now.status !== task.status) progressed({ progress: ++steps, message: now.status })
        task = now
      }
      if (task.status === 'cancelled') return { isError: true, content: [{ type: 'text', text: `the upstream cancelled the task${task.statusMessage ? `: ${task.statusMessage}` : ''}` }] }
      const { _meta, ...result } = await ask('tasks/result', { taskId }, RAW_RESULT) as CallToolResult
      // the task is toolgate's business with the upstream: its id means nothing to the caller
      const { [RELATED_TASK_META_KEY]: _task, ...meta } = _meta ?? {}
      return { ...result, ...(Object.keys(meta).length ? { _meta: meta } : {}) } as CallToolResult
    } catch (e) {
      if (signal.aborted) void client.request({ method: 'tasks/cancel', params: { taskId } }, RAW_RESULT, { timeout: 5_000 }).catch(() => undefined)
      throw e
    }
  }

  /** What the server offers (resources, their subscriptions, prompts) and its instructions, once connected. */
  get offers(): { resources: boolean; subscribe: boolean; prompts: boolean; instructions: string | undefined } {
    const caps = (this.ready ? this.client : this.of?.client)?.getServerCapabilities()
    return { resources: !!caps?.resources, subscribe: !!caps?.resources?.subscribe, prompts: !!caps?.prompts, instructions: this.ready ? this.client?.getInstructions() : undefined }
  }

  /** One resources/*, prompts/* or completion request, passed through; a broken connection is noticed as for calls. */
  request(method: 'resources/list' | 'resources/templates/list' | 'resources/read' | 'prompts/list' | 'prompts/get' | 'completion/complete', params: Record<string, unknown>, timeoutMs: number): Promise<Record<string, unknown>> {
    return this.using(async () => this.requestOn(await this.live(), method, params, timeoutMs))
  }

  private async requestOn(client: Client, method: string, params: Record<string, unknown>, timeoutMs: number): Promise<Record<string, unknown>> {
    // counted as in flight: what the server sends meanwhile belongs to no single call
    const entry: InflightCall = {}
    this.inflight.add(entry)
    let answered = true
    const op = mcpClientOp(this, method, typeof params.name === 'string' ? params.name : undefined, params as { _meta?: Record<string, unknown> })
    try {
      const result = await client.request({ method, params }, RAW_RESULT, { timeout: timeoutMs })
      op?.end(result)
      return result
    } catch (e) {
      op?.end(undefined, e)
      answered = !(e instanceof McpError && e.code === ErrorCode.RequestTimeout)
      if (isTransportFailure(e)) this.fail?.({ kind: 'closed', why: `a request failed: ${describeConnectionError(e)}` })
      throw e
    } finally {
      this.release(entry, answered)
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
    return (this.transport = makeTransport(this.db, this.spec, this.opts, (stream, line) => {
      if (stream === 'stderr') this.lastStderr = line
      this.log(stream, line)
    }, this.onStreamRequest))
  }

  /** Why the connection ended, as specifically as the transport lets us say. */
  private endedBecause(): string {
    if (!isStdio(this.spec.transport)) return 'the upstream connection ended'
    // the SDK keeps its child process private; its exit code is worth reading all the same
    const code = (this.transport as unknown as { _process?: { exitCode: number | null } } | undefined)?._process?.exitCode
    return `the server process exited${typeof code === 'number' ? ` with code ${code}` : ''}${this.lastStderr ? `; its last stderr line: ${this.lastStderr.slice(0, 300)}` : ''}`
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
          // the runtime retries by itself; an operator's restart starts afresh at once (a new process, a new session)
          this.publish(outcome.kind === 'closed' ? 'disconnected' : 'error', outcomeText(outcome), 'restart')
          const backoff = Math.min(this.opts.backoffMaxMs, this.opts.backoffBaseMs * 2 ** attempt)
          this.log('event', `${outcomeText(outcome)}; reconnecting in ${backoff} ms`)
          await sleep(backoff, signal)
        }
      }
    }
  }

  /** Connect, discover, then serve until the connection ends; done(outcome) exactly once. */
  private async connectAndServe(done: (outcome: ConnectionOutcome) => void): Promise<void> {
    // roots: the ones configured for this server (none unless the operator set some)
    // elicitation: forwarded to the caller whose call it is for, when its client can answer
    const client = new Client({ name: 'toolgate', version: pkg.version }, { capabilities: CLIENT_CAPABILITIES })
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: this.spec.roots }))
    client.setRequestHandler(ElicitRequestSchema, (req, extra) => this.elicit(req.params, extra.requestId))
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      const call = this.callFor(n.params._meta)
      if (call?.onLog) call.onLog(n.params)
      else this.log('event', `log (${n.params.level}${n.params.logger ? `, ${n.params.logger}` : ''}): ${(typeof n.params.data === 'string' ? n.params.data : JSON.stringify(n.params.data)).slice(0, 500)}`)
    })
    client.setNotificationHandler(ProgressNotificationSchema, (n) => {
      const { progressToken, ...p } = n.params
      this.progress.get(String(progressToken))?.(p)
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
        for (const changed of [ToolListChangedNotificationSchema, PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema]) {
          client.setNotificationHandler(changed, () => this.rediscover())
        }
      }
      // a new session (or process) starts at the server's default level and with no subscriptions: its agent's go first
      await this.applyLogLevel(client).catch((e: unknown) => this.log('event', `could not set the log level its agent chose (${this.logLevel}): ${describeError(e)}`))
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { for (const heard of this.watchers.get(n.params.uri) ?? []) heard() })
      for (const uri of this.watchers.keys()) {
        await client.request({ method: 'resources/subscribe', params: { uri } }, RAW_RESULT, { timeout: this.opts.connectTimeoutMs })
          .catch((e: unknown) => this.log('event', `could not subscribe again to ${uri}: ${describeError(e)}`))
      }
      this.ready = true
      this.publish('ready')
      this.log('event', 'ready')
    } catch (e) {
      return finish(isUnauthorized(e) ? { kind: 'unauthorized' } : { kind: 'failed', why: `${describeConnectionError(e)}${isStdio(this.spec.transport) && this.lastStderr ? `; its last stderr line: ${this.lastStderr.slice(0, 300)}` : ''}` })
    }
    // Liveness: a ping notices dropped connections and expired logins between calls; a periodic
    // re-list notices definitions changed without list_changed (stateless HTTP servers never send it).
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
        await client.ping({ timeout: Math.min(this.opts.connectTimeoutMs, Math.max(2 * pingEvery, 1_000)) })
      } catch (e) {
        // a refused or broken connection is dead now; a slow answer (a busy machine) gets one
        // more, longer chance before the server is called unhealthy
        const slow = e instanceof McpError && e.code === ErrorCode.RequestTimeout
        const again = slow ? await client.ping({ timeout: this.opts.connectTimeoutMs }).then(() => undefined, (e2: unknown) => e2) : e
        if (again !== undefined) finish(isUnauthorized(again) ? { kind: 'unauthorized' } : { kind: 'closed', why: `ping failed: ${describeConnectionError(again)}` })
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
