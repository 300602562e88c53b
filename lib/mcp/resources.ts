import 'server-only'
import { ProtocolError, ResourceNotFoundError, type CompleteResult, type GetPromptResult, type ListPromptsResult, type ListResourcesResult, type ListResourceTemplatesResult, type ReadResourceResult } from '@modelcontextprotocol/server'
import { readSnapshot } from '@/db/queries/preflight-state'
import { knownDefinition, servedDefinition, servedDefinitions } from '@/db/queries/definitions'
import { readSettings } from '@/db/queries/settings'
import { serverConfig } from '@/db/queries/servers'
import { reviewContext } from '@/db/queries/tools'
import type { DefinitionKind, JsonObject } from '@/db/schema'
import { appendActivity } from '@/lib/activity/record'
import type { Asker } from '@/lib/core/activity'
import type { Finding } from '@/lib/core/definition'
import { reviewFindings } from '@/lib/approvals/findings'
import { fromToolgateUri, toToolgateUri } from '@/lib/approvals/server-definitions'
import { describeError } from '@/lib/core/errors'
import { classifyServer } from '@/lib/preflight/classifier'
import { scopeOf } from '@/lib/preflight/evaluate'
import { parseToolId } from '@/lib/preflight/ids'
import { runningSupervisor } from '@/lib/upstream/supervisor'
import { callerKey } from '@/lib/auth/caller'
import type { UpstreamConnection } from '@/lib/upstream/connection'
import type { McpContext } from './context'
import type { InflightCall } from '@/lib/upstream/calls'
import { invalidParams } from './errors'
import { upstreamError } from '@/lib/upstream/answered'

/**
 * The upstreams' instructions, prompts and resources: a prompt as `server:prompt`, a resource
 * under the URI its server gave it — in listings, reads, prompts and tool results alike (content,
 * structuredContent and a tool's _meta, such as an MCP App's ui:// resource, all name the same
 * URI). A read is routed by which server owns the URI (routeUri): one that handed it to this
 * caller, else the one server that lists it or a template of it, else the one server that offers
 * resources. Only where two servers list the same URI is it namespaced, as
 * `toolgate://<server>/<its URI>` (that form is always accepted).
 *
 * What is listed (instructions, prompts, resources, templates) is each one's APPROVED
 * definition, read from the database (db/queries/definitions.ts): a new or changed one is
 * withheld until an operator approves it, as a tool is. prompts/get and resources/read pass the
 * gate when they happen — the server in scope, released, enabled and connected, the prompt (or
 * listed resource) approved — and are on the record like calls.
 */
const REQUEST_TIMEOUT_MS = 30_000
/** JSON-RPC's server-error range: the request was understood and refused (a prompt withheld for what it says). */
const WITHHELD = -32000

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** URIs a server's tools and prompts handed each caller, so a read of one goes back to that server (the oldest forgotten first). */
const handedOut = new Map<string, string>()
const HANDED_OUT_KEPT = 10_000
const handedKey = (caller: string | undefined, uri: string) => `${caller ?? ''}\u0000${uri}`

/** Note the resource URIs in content blocks (resource_link, embedded resource) as `server`'s, for this caller. */
export function noteContentUris(caller: string | undefined, server: string, content: unknown): void {
  for (const block of Array.isArray(content) ? content : [content]) {
    if (!isObject(block)) continue
    const uri = block.type === 'resource_link' ? block.uri : block.type === 'resource' && isObject(block.resource) ? block.resource.uri : undefined
    if (typeof uri !== 'string') continue
    const key = handedKey(caller, uri)
    handedOut.delete(key)
    handedOut.set(key, server)
    if (handedOut.size > HANDED_OUT_KEPT) handedOut.delete(handedOut.keys().next().value!)
  }
}

/** The literal start of a URI template (up to its first expression), when it has one. */
const templatePrefix = (t: string) => (t.indexOf('{') > 0 ? t.slice(0, t.indexOf('{')) : undefined)

/** How many reachable servers list each URI (or template): more than one is a collision, namespaced. */
function listedBy(rows: { definition: Json }[], field: string): Map<string, number> {
  const n = new Map<string, number>()
  for (const { definition } of rows) n.set(String(definition[field]), (n.get(String(definition[field])) ?? 0) + 1)
  return n
}

/** The server a URI this session reads belongs to, and the URI that server knows it by. */
function routeUri(session: McpContext, uri: string): { server: string; uri: string } | undefined {
  const explicit = fromToolgateUri(uri)
  if (explicit) return explicit
  const handed = handedOut.get(handedKey(callerKey(session.caller), uri))
  if (handed) return { server: handed, uri }
  const only = (servers: string[]) => (new Set(servers).size === 1 ? { server: servers[0], uri } : undefined)
  const listing = served(session, 'resource').filter((r) => r.definition.uri === uri).map((r) => r.server)
  if (listing.length) return only(listing)
  const templated = served(session, 'resource_template').filter((t) => {
    const prefix = templatePrefix(String(t.definition.uriTemplate))
    return prefix !== undefined && uri.startsWith(prefix)
  }).map((t) => t.server)
  if (templated.length) return only(templated)
  const supervisor = runningSupervisor()
  return only(reachable(session).filter((s) => supervisor?.connection(s)?.offers.resources))
}

/** The servers this session may reach for instructions, prompts and resources: in scope, released, enabled, connected. */
function reachable(session: McpContext): string[] {
  const supervisor = runningSupervisor()
  if (!supervisor) return []
  return readSnapshot(session.db, (state) => {
    const inScope = scopeOf(state, session.caller, session.profile)
    return supervisor.connectedServers().filter((n) => inScope(n) && classifyServer(state.server(n)) === 'ok').sort()
  })
}

/** Why this session may not reach a server now (the record's reason), or its live connection. */
function gate(session: McpContext, server: string): { conn: UpstreamConnection } | { reason: string } {
  const state = readSnapshot(session.db, (s) => ({ inScope: scopeOf(s, session.caller, session.profile)(server), gate: classifyServer(s.server(server)) }))
  // out of scope and unconfigured read alike, as everywhere at the agent tier
  if (!state.inScope || state.gate === 'server_not_configured') return { reason: 'not_found' }
  if (state.gate !== 'ok') return { reason: state.gate }
  // the caller's own session, where the server's isolation gives each token one
  const conn = runningSupervisor()?.connectionFor(server, callerKey(session.caller), serverConfig(session.db, server)?.isolation ?? 'auto')
  return conn ? { conn } : { reason: 'server_unhealthy' }
}

/** Why a definition is not served (pending_approval, changed, not_found), or undefined when it is. */
function withheld(session: McpContext, server: string, kind: DefinitionKind, key: string): string | undefined {
  const d = knownDefinition(session.db, server, [kind], key)
  if (!d) return 'not_found'
  const trust = serverConfig(session.db, server)?.trust ?? 'manual'
  if (servedDefinition(d, trust, readSettings(session.db).quarantineEnabled)) return undefined
  return d.status === 'changed' ? 'changed' : 'pending_approval'
}

function served(session: McpContext, kind: DefinitionKind) {
  return servedDefinitions(session.db, reachable(session), kind)
}

// What the listings return is each approved definition as its server gave it (only names and
// URIs mapped): the casts below state what MCP servers send, which toolgate does not reshape.
export const listResources = async (session: McpContext) => {
  const rows = served(session, 'resource')
  const n = listedBy(rows, 'uri')
  return { resources: rows.map(({ server, definition: r }) => (n.get(String(r.uri))! > 1 ? { ...r, uri: toToolgateUri(server, String(r.uri)) } : r)) } as ListResourcesResult
}

export const listResourceTemplates = async (session: McpContext) => {
  const rows = served(session, 'resource_template')
  const n = listedBy(rows, 'uriTemplate')
  return { resourceTemplates: rows.map(({ server, definition: t }) => (n.get(String(t.uriTemplate))! > 1 ? { ...t, uriTemplate: toToolgateUri(server, String(t.uriTemplate)) } : t)) } as ListResourceTemplatesResult
}

export const listPrompts = async (session: McpContext) =>
  ({ prompts: served(session, 'prompt').map(({ server, definition: p }) => ({ ...p, name: `${server}:${String(p.name)}` })) }) as ListPromptsResult

/** The upstreams' approved instructions, labelled per server, for the servers this session may reach. */
export function upstreamInstructions(session: McpContext): string {
  return served(session, 'instructions').flatMap(({ server, definition }) => {
    const text = typeof definition.instructions === 'string' ? definition.instructions.trim() : ''
    return text ? [`[${server}] ${text}`] : []
  }).join('\n\n')
}

/** Where a subscription goes: the upstream session a caller's reads go to, and the URI that server knows it by. */
export interface SubscriptionTarget { conn: UpstreamConnection; uri: string }

/**
 * Where this session's subscription to `uri` goes, under a read's gates (in scope, the server
 * released and connected, a listed resource approved): 'refused' where they refuse a read (and
 * is answered as a read would be), 'not_offered' where they pass but its server keeps no subscriptions.
 */
export function subscriptionTarget(session: McpContext, uri: string): SubscriptionTarget | 'refused' | 'not_offered' {
  const target = routeUri(session, uri)
  if (!target) return 'refused'
  const g = gate(session, target.server)
  if ('reason' in g) return 'refused'
  const why = withheld(session, target.server, 'resource', target.uri)
  if (why && why !== 'not_found') return 'refused'
  return g.conn.offers.subscribe ? { conn: g.conn, uri: target.uri } : 'not_offered'
}

/**
 * Whether a server this session may reach keeps resource subscriptions: what both revisions
 * declare as capabilities.resources.subscribe, for this caller.
 */
export function offersSubscriptions(session: McpContext): boolean {
  const supervisor = runningSupervisor()
  return reachable(session).some((s) => supervisor?.connection(s)?.offers.subscribe)
}

/** Whose request a question asked during it belongs to, for its record: the caller, under the request's id. */
const askerOf = (session: McpContext, target: string): Asker => ({ requestId: session.requestId, actor: session.caller.name, tier: session.caller.tier, target })

/** An upstream request during which its server may ask the caller something (session.ask); what is asked lapses with the request. */
async function askingCaller<T>(session: McpContext, request: (ask: InflightCall['onAsk']) => Promise<T>): Promise<T> {
  const { ask } = session
  if (!ask) return request(undefined)
  const ended = new AbortController()
  try {
    return await request((asked) => ask(asked, ended.signal))
  } finally {
    ended.abort()
  }
}

type Outcome = { outcome: 'ok' | 'refused' | 'withheld' | 'failed'; reason?: string; error?: string; findings?: Finding[] }

/** A prompts/get or resources/read on the record (caller, target, outcome, duration) before it is answered. */
async function record(session: McpContext, type: 'prompt.get' | 'resource.read', server: string | undefined, target: string, started: number, o: Outcome): Promise<void> {
  if (session.record === false) return
  await appendActivity(session.db, {
    requestId: session.requestId, type, actor: session.caller.name, tier: session.caller.tier, server,
    data: { target, ...o, duration_ms: Date.now() - started },
  })
}

/**
 * resources/read. A resource the server lists must be approved; a URI it does not list (one a
 * tool returned as a resource_link, one a template describes) is data, like a tool's result,
 * read under the server's gates alone. Refused reads answer as a resource that does not exist.
 */
export async function readResource(session: McpContext, uri: string): Promise<ReadResourceResult> {
  const started = Date.now()
  const target = routeUri(session, uri)
  const refuse = async (reason: string) => {
    await record(session, 'resource.read', target?.server, uri, started, { outcome: 'refused', reason })
    return new ResourceNotFoundError(uri)
  }
  if (!target) throw await refuse('not_found')
  const g = gate(session, target.server)
  if ('reason' in g) throw await refuse(g.reason)
  const why = withheld(session, target.server, 'resource', target.uri)
  if (why && why !== 'not_found') throw await refuse(why)
  let r: Record<string, unknown>
  try {
    r = await askingCaller(session, (ask) => g.conn.request('resources/read', { uri: target.uri }, { timeoutMs: REQUEST_TIMEOUT_MS, onAsk: ask, asker: askerOf(session, uri), signal: session.closed }))
  } catch (e) {
    await record(session, 'resource.read', target.server, uri, started, { outcome: 'failed', error: describeError(e).slice(0, 500) })
    // the upstream's own error, naming the URI as the caller asked for it (data.uri, as MCP's not-found carries)
    const answered = upstreamError(e)
    if (answered) throw new ProtocolError(answered.code, answered.message.replaceAll(target.uri, uri), answered.data ?? { uri })
    throw e
  }
  await record(session, 'resource.read', target.server, uri, started, { outcome: 'ok' })
  // as given; a namespaced read answers under the namespaced URI it asked for
  if (uri === target.uri) return r as ReadResourceResult
  const contents = Array.isArray(r.contents) ? r.contents.map((c) => (isObject(c) && typeof c.uri === 'string' ? { ...c, uri: toToolgateUri(target.server, c.uri) } : c)) : []
  return { ...r, contents } as ReadResourceResult
}

/**
 * Rendered prompt text that is withheld from agents: text telling the model to drop its
 * instructions or keep things from its user, and invisible characters. A prompt's messages are
 * made when it is asked for (with its arguments), so no approval of its definition covers them;
 * and a prompt addresses the model by design, so ordinary instructions pass — but none needs to
 * override the model's instructions, hide something from its user or carry invisible text.
 * Every finding is recorded. Where the approval gate does not apply to the server (trust=auto,
 * quarantine_enabled off) nothing is withheld for what it says.
 */
const WITHHELD_CODES: ReadonlySet<Finding['code']> = new Set(['instruction_like', 'hidden_characters'])

/** prompts/get: the gate now, then the upstream's rendered prompt, its findings, and the record. */
export async function getPrompt(session: McpContext, name: string, args: Record<string, string> | undefined): Promise<GetPromptResult> {
  const started = Date.now()
  const parsed = parseToolId(name)
  const unknown = async (reason: string, server?: string) => {
    await record(session, 'prompt.get', server, name, started, { outcome: 'refused', reason })
    return invalidParams(`Unknown prompt: "${name}"`)
  }
  if ('malformed' in parsed) throw await unknown('not_found')
  const g = gate(session, parsed.server)
  if ('reason' in g) throw await unknown(g.reason, parsed.server)
  const why = withheld(session, parsed.server, 'prompt', parsed.tool)
  if (why) throw await unknown(why, parsed.server)
  let r: Record<string, unknown>
  try {
    r = await askingCaller(session, (ask) => g.conn.request('prompts/get', { name: parsed.tool, ...(args ? { arguments: args } : {}) }, { timeoutMs: REQUEST_TIMEOUT_MS, onAsk: ask, asker: askerOf(session, name), signal: session.closed }))
  } catch (e) {
    await record(session, 'prompt.get', parsed.server, name, started, { outcome: 'failed', error: describeError(e).slice(0, 500) })
    throw e
  }
  const messages = Array.isArray(r.messages) ? r.messages : []
  for (const m of messages) if (isObject(m)) noteContentUris(callerKey(session.caller), parsed.server, m.content)
  const findings = reviewFindings({ ...(typeof r.description === 'string' ? { description: r.description } : {}), messages } as JsonObject, reviewContext(session.db, parsed.server))
  const gated = (serverConfig(session.db, parsed.server)?.trust ?? 'manual') === 'manual' && readSettings(session.db).quarantineEnabled
  const blocking = gated ? findings.filter((f) => WITHHELD_CODES.has(f.code)) : []
  if (blocking.length) {
    await record(session, 'prompt.get', parsed.server, name, started, { outcome: 'withheld', reason: blocking[0].code, findings })
    // the finding's codes, never the text that tripped them: echoing it would hand it to the model after all
    const codes = [...new Set(blocking.map((f) => f.code))].join(', ')
    throw new ProtocolError(WITHHELD, `toolgate withheld prompt "${name}": its rendered text has review findings (${codes}) that no prompt needs. An operator can see them on the record (prompt.get, request ${session.requestId}).`)
  }
  await record(session, 'prompt.get', parsed.server, name, started, { outcome: 'ok', ...(findings.length ? { findings } : {}) })
  return { ...r, messages } as GetPromptResult
}

/** What completion/complete names: a prompt (`server:prompt`) or a resource template (its URI template as listed). */
export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }

/** The server that owns a resource template this session may see, and the template as that server knows it. */
function routeTemplate(session: McpContext, uriTemplate: string): { server: string; uri: string } | undefined {
  const explicit = fromToolgateUri(uriTemplate)
  if (explicit) return explicit
  const owners = served(session, 'resource_template').filter((t) => t.definition.uriTemplate === uriTemplate).map((t) => t.server)
  // two servers listing the same template serve it namespaced: the bare one names neither
  return owners.length === 1 ? { server: owners[0], uri: uriTemplate } : undefined
}

/**
 * completion/complete: passed to the server that owns the prompt or template, once it passes the
 * same gate as prompts/get (in scope, released, connected, its definition approved). One the
 * caller may not see is unknown, exactly as one that does not exist.
 */
export async function complete(session: McpContext, params: { ref: CompletionRef } & Record<string, unknown>): Promise<CompleteResult> {
  const { ref } = params
  let target: { server: string; kind: DefinitionKind; key: string; ref: CompletionRef } | undefined
  if (ref.type === 'ref/prompt') {
    const parsed = parseToolId(ref.name)
    if (!('malformed' in parsed)) target = { server: parsed.server, kind: 'prompt', key: parsed.tool, ref: { ...ref, name: parsed.tool } }
  } else {
    const routed = routeTemplate(session, ref.uri)
    if (routed) target = { server: routed.server, kind: 'resource_template', key: routed.uri, ref: { ...ref, uri: routed.uri } }
  }
  const unknown = () => invalidParams(ref.type === 'ref/prompt' ? `Unknown prompt: "${ref.name}"` : `Unknown resource template: "${ref.uri}"`)
  if (!target) throw unknown()
  const g = gate(session, target.server)
  if ('reason' in g || withheld(session, target.server, target.kind, target.key)) throw unknown()
  return await g.conn.request('completion/complete', { ...params, ref: target.ref }, { timeoutMs: REQUEST_TIMEOUT_MS, signal: session.closed }) as CompleteResult
}
