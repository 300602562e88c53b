import 'server-only'
import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY, ProtocolErrorCode, Server, type CallToolResult, type JSONRPCRequest, type LoggingMessageNotification, type Progress, type Result, type ServerCapabilities, type ServerContext } from '@modelcontextprotocol/server'
import { resolveParamsSchema as resolveParams } from '@/lib/schemas/mcp'
import pkg from '@/package.json'
import { runCheck } from '@/lib/gate/check'
import { dispatchToolCall } from '@/lib/upstream/dispatch'
import { describeTool } from './describe-tool'
import { DESCRIBE_TOOL, describeToolDefinition, listPage, servedTool, toMcpTool } from '@/lib/catalog/listing'
import { invalidParams, toProtocolError } from './errors'
import { EXTENSION_ID, legacySettings, parseRider, RiderError, serverSettings, type Rider } from '@/lib/schemas/extension'
import type { McpContext } from './context'
import { callResult, shapeAFacet, shapeBFacet } from './wire'
import { CallInProgress, parkedCall } from './ask-caller'
import { belowLogLevel } from './log-level'
import { callerKey } from '@/lib/auth/caller'
import { logError } from '@/lib/core/log'
import { following } from '@/lib/signals'
import { callAsTask, declaresExtension, registerTaskMethods, TASKS_EXTENSION } from './task-extension'
import { complete, getPrompt, listPrompts, listResources, listResourceTemplates, offersSubscriptions, readResource, upstreamInstructions } from './resources'

export type Era = 'modern' | 'legacy'

const INSTRUCTIONS = `toolgate serves its callable tools as server:tool. To check that the tools a job needs are ready, `
  + `send the ${EXTENSION_ID} rider in tools/list params._meta (declare the extension in your client capabilities), `
  + `resolve one tool with tools/resolve, or call describe_tool with check: true.`

/**
 * Advertisement. 2026-07-28: the extension in capabilities.extensions (server/discover).
 * 2025-11-25: the mcpproxy convention, capabilities.experimental (initialize). Both eras serve
 * SEP-1862 tools/resolve. list_changed goes out on 2026-07-28's subscriptions/listen streams
 * and on the 2025-11-25 GET stream (lib/mcp/listen.ts, both for the caller's own listings).
 * `subscribe`: whether a server the caller may reach keeps resource subscriptions
 * (offersSubscriptions), on both eras.
 */
function capabilities(era: Era, subscribe: boolean): ServerCapabilities {
  // `resolve` is a SEP-1862 draft member the SDK's types do not know yet; it passes to the wire.
  const tools = { listChanged: true, resolve: true }
  // the upstreams' resources and prompts, under toolgate's names (lib/mcp/resources.ts)
  // logging: the upstreams' log messages during a call are forwarded to its caller
  // completions: the upstreams' own, for their prompts and resource templates
  // resource subscriptions: passed on to the caller's upstream session — in a listen stream's
  // filter (2026-07-28), by resources/subscribe, heard on the GET stream (2025-11-25: lib/mcp/subscriptions.ts)
  const served = { tools, resources: { listChanged: true, subscribe }, prompts: { listChanged: true }, logging: {}, completions: {} }
  return era === 'modern'
    // tasks: any tools/call may run as one (lib/mcp/tasks.ts); 2026-07-28 has them as the Tasks extension (task-extension.ts)
    ? { ...served, extensions: { [EXTENSION_ID]: serverSettings, [TASKS_EXTENSION]: {} } }
    : { ...served, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } }, experimental: { [EXTENSION_ID]: legacySettings } }
}

/**
 * The SDK's Server, answering a tools/call result as given. Its own wrapper validates the result
 * and answers the parsed copy, which drops every field its schemas do not know (an upstream's
 * extra content-block fields): the validation still runs, and a malformed result is still refused,
 * but what goes out is the result itself over the parsed copy's defaults.
 */
class PassThroughServer extends Server {
  protected override _wrapHandler(method: string, handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>) {
    if (method !== 'tools/call') return super._wrapHandler(method, handler)
    const given = new WeakMap<ServerContext, Result>()
    const validated = super._wrapHandler(method, async (request, ctx) => {
      const result = await handler(request, ctx)
      given.set(ctx, result)
      return result
    })
    return async (request: JSONRPCRequest, ctx: ServerContext) => {
      const checked = await validated(request, ctx)
      const raw = given.get(ctx)
      // a task handle (the Tasks extension) is no CallToolResult: it goes out as given
      return raw?.resultType === 'task' ? raw : raw ? { ...checked, ...raw } : checked
    }
  }
}

/**
 * The client's request _meta as the upstream gets it: all of it but toolgate's own keys — the
 * extension's rider, the progress token (the upstream gets toolgate's), and the protocol's own
 * io.modelcontextprotocol/ keys (the per-request envelope, a related task: toolgate's session's).
 */
function upstreamMeta(meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!meta) return undefined
  const out: Record<string, unknown> = {}
  for (const key in meta) if (key !== EXTENSION_ID && key !== 'progressToken' && !key.startsWith('io.modelcontextprotocol/')) out[key] = meta[key]
  return out
}

/**
 * Whether this request's rider is to be honoured. 2026-07-28: only when the request declares
 * the extension in its per-request client capabilities (SEP-2133); otherwise the unknown _meta
 * key is ignored per core spec. 2025-11-25: a stateless server never sees the client's
 * initialize, so the rider's own presence is the signal (seed "Legacy carriage").
 */
function negotiated(era: Era, envelope: unknown): boolean {
  return era === 'legacy' || declaresExtension(envelope, EXTENSION_ID)
}

/** What this 2026-07-28 request's client capabilities (SEP-2133) say it can answer: elicitations, sampling. */
function declaredAnswers(envelope: unknown): { elicitation: boolean; sampling: boolean } {
  const caps = (envelope as Record<string, { elicitation?: unknown; sampling?: unknown } | undefined> | undefined)?.[CLIENT_CAPABILITIES_META_KEY]
  return { elicitation: caps?.elicitation !== undefined, sampling: caps?.sampling !== undefined }
}

/** A negotiated rider, parsed; malformed fails the whole carrier with -32602 (no partial evaluation). */
function riderOf(era: Era, meta: Record<string, unknown> | undefined, envelope: unknown): Rider | undefined {
  const raw = meta?.[EXTENSION_ID]
  if (raw === undefined || !negotiated(era, envelope)) return undefined
  try {
    return parseRider(raw)
  } catch (e) {
    if (e instanceof RiderError) throw invalidParams(`malformed ${EXTENSION_ID} rider: ${e.message}`)
    throw e
  }
}

/** Run a handler body; failures become JSON-RPC errors, and infrastructure ones are logged. */
async function guard<T>(session: McpContext, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (e) {
    const err = toProtocolError(e)
    if (err.code === ProtocolErrorCode.InternalError) logError(`toolgate: mcp request ${session.requestId} failed: ${err.message}`)
    throw err
  }
}

/** Where a handler finds the session it answers for: its own server's, or (a shared server) by request. */
export type SessionOf = (ctx: ServerContext) => McpContext

/**
 * tools/list (with Shape A), tools/resolve (Shape B) and tools/call (gated dispatch), each
 * answering for the session `sessionOf` finds for its request.
 */
export function registerToolHandlers(server: Server, sessionOf: SessionOf, era: Era): void {
  server.setRequestHandler('tools/list', (request, ctx) => { const session = sessionOf(ctx); return guard(session, async () => {
    const { db, caller, profile, requestId } = session
    const rider = riderOf(era, request.params?._meta, ctx.mcpReq.envelope)
    const page = listPage(session, request.params?.cursor)
    if (!rider) return page
    // Shape A: the carrier's tools are exactly the riderless page; the verdict rides in _meta.
    const data = await runCheck(db, {
      caller, surface: 'mcp-shape-a', requestId, record: session.record,
      input: { ids: rider.tools.map((t) => t.id), policy: rider.policy, profile },
    })
    // ttlMs: 0 so a 2026-07-28 client cache never answers a later rider with this facet.
    return { ...page, _meta: { [EXTENSION_ID]: shapeAFacet(data) }, ...(era === 'modern' ? { ttlMs: 0 } : {}) }
  }) })

  server.setRequestHandler('tools/resolve', { params: resolveParams }, (params, ctx) => { const session = sessionOf(ctx); return guard(session, async () => {
    // The built-in is always available and is not an upstream tool: no facet to compute.
    if (params.name === DESCRIBE_TOOL) return { tool: describeToolDefinition }
    const tool = servedTool(session, params.name)
    // SEP-1862: an unknown tool is -32602, so withheld, out-of-scope and absent tools all end
    // here, and only codes that can hold for a served tool reach the facet (see docs/mcp.md).
    if (!tool) throw invalidParams(`unknown tool "${params.name}": no such tool is served to this session`)
    const { db, caller, profile, requestId } = session
    const data = await runCheck(db, { caller, surface: 'mcp-shape-b', requestId, record: session.record, input: { ids: [params.name], profile } })
    return { tool: { ...toMcpTool(tool), _meta: { [EXTENSION_ID]: shapeBFacet(data.tools[0]) } } }
  }) })

  // Upstream tools go through gated dispatch, whose gate is the same evaluator: a call is
  // refused, as a tool error carrying the preflight's verdict, exactly when preflight says so.
  // What the upstream sends during the call reaches the client: progress (and the wait for a
  // held call's approval) under the client's own progress token, log messages, and elicitations
  // (lib/mcp/ask-caller.ts). A cancellation, or the client going away, cancels upstream.
  server.setRequestHandler('tools/call', (request, ctx) => {
    const session = sessionOf(ctx)
    // the request cancelled, or its client gone
    const leaving = [ctx.mcpReq.signal, session.closed]
    return guard(session, async (): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params
    if (name === DESCRIBE_TOOL) return describeTool(session, args)
    const token = request.params._meta?.progressToken
    // a 2026-07-28 request's own log level goes on with it (ahead of a level its token set on 2025-11-25)
    // (lifted into the envelope, as the SDK's own log reads it, though its type does not name it)
    const level = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[LOG_LEVEL_META_KEY]
    const meta = level === undefined ? upstreamMeta(request.params._meta) : Object.assign({}, upstreamMeta(request.params._meta), { [LOG_LEVEL_META_KEY]: level })
    // 2026-07-28, a client that declares the Tasks extension: the call runs as a task it follows
    const task = era === 'modern' ? await callAsTask(session, ctx, name, args, { meta, answers: declaredAnswers(ctx.mcpReq.envelope) }) : undefined
    if (task) return task
    // every notification goes out before the result it precedes
    const sent: Promise<unknown>[] = []
    // an exchange that answers one JSON body carries nothing before its result
    const sinks = session.streams === false ? {} : {
      progress: token === undefined ? undefined
        : (p: Progress) => void sent.push(ctx.mcpReq.notify({ method: 'notifications/progress', params: { ...p, progressToken: token } }).catch(() => undefined)),
      // through the SDK's log, which applies a 2026-07-28 request's log level; 2025-11-25 levels are per caller
      log: (params: LoggingMessageNotification['params']) => {
        if (era === 'legacy' && belowLogLevel(callerKey(session.caller), params.level)) return
        sent.push(ctx.mcpReq.log(params.level, params.data, params.logger).catch(() => undefined))
      },
    }

    // 2026-07-28, a client that can answer elicitations or sampling: the call may stop to ask (input_required)
    const asking = askingCall(era, session, ctx, sinks)
    if (asking) {
      // followed only while this leg runs
      const left = following(...leaving)
      try {
        const answer = await asking(left.controller.signal, (call) => dispatchToolCall({
          ...session, meta, signals: [call.cancel.signal], ask: call.ask,
          progress: (p) => call.sinks.progress?.(p), log: (l) => call.sinks.log?.(l),
        }, name, args).then((outcome) => callResult(name, outcome, callerKey(session.caller))))
        await Promise.all(sent)
        return answer as CallToolResult
      } finally {
        left.release()
      }
    }
    // otherwise elicitations go out on the call's own SSE stream (2025-11-25), or are declined
    // Object.assign, not a spread with new keys: V8 (Node 20) builds that as a slow object, microseconds a call
    const outcome = await dispatchToolCall(Object.assign({}, session, sinks, { meta, ask: session.ask, signals: leaving }), name, args)
    await Promise.all(sent)
    return callResult(name, outcome, callerKey(session.caller))
  })
  })
}

/**
 * 2026-07-28, a client that can answer elicitations or sampling: a request (tools/call, prompts/get,
 * resources/read) whose upstream asks its caller something answers input_required, and the
 * caller's retry — which only the same token may send (an anonymous caller cannot: it is
 * declined) — brings the answer to the same upstream request (lib/mcp/ask-caller.ts). The
 * upstream request is started on the first leg (`start`); undefined where this does not apply.
 */
function askingCall(era: Era, session: McpContext, ctx: ServerContext, sinks: CallInProgress['sinks'] = {}):
  ((left: AbortSignal, start: (call: CallInProgress) => Promise<Result>) => Promise<Result>) | undefined {
  const key = callerKey(session.caller)
  const declared = declaredAnswers(ctx.mcpReq.envelope)
  if (era !== 'modern' || key === undefined || !(declared.elicitation || declared.sampling)) return undefined
  return (left, start) => {
    const state = ctx.mcpReq.requestState()
    const call = typeof state === 'string' ? parkedCall(key, ctx.mcpReq.method, state) : new CallInProgress(key, ctx.mcpReq.method, declared)
    call.sinks = sinks
    if (typeof state === 'string') return call.resume(ctx.mcpReq.inputResponses, left)
    call.finish(start(call))
    return call.leg(left)
  }
}

/**
 * A prompts/get or resources/read: a 2026-07-28 client that can answer is asked through
 * input_required (askingCall), a 2025-11-25 one over its request's stream (session.ask).
 */
function answering<T extends Result>(era: Era, session: McpContext, ctx: ServerContext, read: (session: McpContext) => Promise<T>): Promise<T> {
  const asking = askingCall(era, session, ctx)
  if (!asking) return guard(session, () => read(session))
  // an input_required leg is what the SDK expects of these methods on 2026-07-28; followed while it runs
  const left = following(ctx.mcpReq.signal, session.closed)
  // the read outlives the leg that started it (a retry answers its question): it ends when the call is given up, by any leg or at its question's expiry
  return guard(session, () => asking(left.controller.signal, (call) => read(Object.assign({}, session, { ask: call.ask, closed: call.cancel.signal }))) as Promise<T>).finally(left.release)
}

/**
 * The server the lean path answers the common methods with (lib/mcp/lean.ts): built once per
 * era and shared by every exchange, each handler finding its exchange's session by request.
 */
export function buildToolServer(era: Era, sessionOf: SessionOf): Server {
  // it answers no handshake and no listen, so nothing reads what it declares per caller
  const server = new PassThroughServer({ name: 'toolgate', version: pkg.version }, { capabilities: capabilities(era, false), instructions: INSTRUCTIONS })
  registerToolHandlers(server, sessionOf, era)
  return server
}

/**
 * What an exchange reads of the server built for it beyond its answer: a handshake (initialize,
 * server/discover) its instructions and capabilities; a subscriptions/listen its capabilities
 * (the SDK honours its filter against them). Either is worked out only where it is read.
 */
export type Exchange = 'handshake' | 'listen'

/**
 * One MCP server instance for one HTTP exchange (the endpoint is stateless). Every verdict it
 * gives comes from runCheckSync — the seam REST and the CLI use — at the agent tier, so the
 * in-band surface cannot drift from them, and each check is on the record before it answers.
 */
export function buildMcpServer(session: McpContext, era: Era, exchange?: Exchange): Server {
  const upstream = exchange === 'handshake' ? upstreamInstructions(session) : ''
  const instructions = upstream ? `${INSTRUCTIONS}\n\nInstructions of the servers behind toolgate:\n\n${upstream}` : INSTRUCTIONS
  // a 2025-11-25 subscription is kept under its caller's token: an anonymous caller has none to keep it under (lib/mcp/subscriptions.ts)
  const subscribe = exchange !== undefined && (era === 'modern' || callerKey(session.caller) !== undefined) && offersSubscriptions(session)
  const server = new PassThroughServer({ name: 'toolgate', version: pkg.version }, { capabilities: capabilities(era, subscribe), instructions })
  registerToolHandlers(server, () => session, era)
  if (era === 'modern') registerTaskMethods(server, session)

  server.setRequestHandler('resources/list', () => guard(session, () => listResources(session)))
  server.setRequestHandler('resources/templates/list', () => guard(session, () => listResourceTemplates(session)))
  server.setRequestHandler('resources/read', (request, ctx) => answering(era, session, ctx, (s) => readResource(s, request.params.uri)))
  server.setRequestHandler('prompts/list', () => guard(session, () => listPrompts(session)))
  server.setRequestHandler('prompts/get', (request, ctx) => answering(era, session, ctx, (s) => getPrompt(s, request.params.name, request.params.arguments)))
  server.setRequestHandler('completion/complete', (request) => guard(session, () => complete(session, request.params)))

  return server
}
