import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { rpcErrorBodySchema as rpcErrorBody } from '@/lib/schemas/mcp'
import pkg from '@/package.json'
import { UsageError } from '@/lib/cli/args'
import { preflightTable, toJson } from '@/lib/cli/output'
import type { Policy } from '@/lib/core/state'
import type { ToolResult } from '@/lib/preflight/evaluate'
import { exitCodes } from '@/lib/preflight/taxonomy'
import { EXTENSION_ID, facetSchema, legacySettings, MAX_RIDER_TOOLS, type Facet, type FacetTool, type Rider } from '@/lib/schemas/extension'
import { envVar } from '@/lib/core/config'

/** The flags `tools preflight` parsed; in band only a subset applies. */
export interface InBandFlags {
  url?: string
  token?: string
  db?: string
  profile?: string
  pin?: string[]
  wait?: string
  'api-key'?: string
  'read-only-only'?: boolean
  'exclude-destructive'?: boolean
  'exclude-open-world'?: boolean
}

/** Flags with no in-band meaning: the rider has no profile, pins or wait (seed "Reserved fields"). */
const notInBand: [keyof InBandFlags, string][] = [
  ['profile', '--profile: scope is the session\'s; use --url <base>/mcp/p/<profile>'],
  ['pin', '--pin: hash pins are reserved in band (use the REST surface)'],
  ['wait', '--wait: the rider has no wait budget'],
  ['api-key', '--api-key: the MCP surface is always the agent tier; use --token'],
]

/** A facet entry as the CLI's table and JSON output show a result. */
function toResult(t: FacetTool): ToolResult {
  if (t.status === 'ready') return { id: t.id, status: 'ready' }
  return {
    id: t.id, status: 'unavailable', reason: t.reason, retryable: t.retryable,
    ...(t.action ? { action: t.action } : {}),
    detail: t.detail ?? '', remediation: t.remediation ?? '',
    ...(t.did_you_mean ? { did_you_mean: t.did_you_mean } : {}),
  }
}

/** `<url>/mcp`, for a URL given without its endpoint. */
const mcpOf = (url: string) => `${url.replace(/\/+$/, '')}/mcp`

/**
 * The MCP endpoint to ask: --url (a bare base URL is refused with the endpoint it likely
 * meant), else the URL of the toolgate running on the database (--db, $TOOLGATE_DB, else the
 * default: found as `upstream login` finds it) or $TOOLGATE_URL, plus /mcp; else the default
 * address when a toolgate answers there. Which one was chosen goes to stderr.
 */
async function endpointOf(values: InBandFlags): Promise<string> {
  if (values.url !== undefined) {
    if (values.db !== undefined) throw new UsageError('--db: --in-band asks the server at --url, whatever database it runs on (not available with --in-band and --url)')
    let u: URL
    try {
      u = new URL(values.url)
    } catch {
      throw new UsageError(`--url must be toolgate's MCP endpoint, like http://127.0.0.1:3000/mcp, not "${values.url}"`)
    }
    if (u.pathname === '/' && !u.search) throw new UsageError(`--url ${values.url} is toolgate's base URL; --in-band asks its MCP endpoint: did you mean ${mcpOf(u.origin)}?`)
    return values.url
  }
  const [{ openReadOnly }, { closeStore }, { runtimeHolder }, { databaseOf, serverUrlOf, toolgateAnswersAt }] = await Promise.all([
    import('@/lib/cli/db'), import('@/db/client'), import('@/db/queries/connections'), import('@/lib/server/address'),
  ])
  const db = openReadOnly(values.db)
  let holder: ReturnType<typeof runtimeHolder> = null
  try {
    holder = db ? runtimeHolder(db) : null
  } finally {
    if (db) closeStore(db)
  }
  const { url, from } = serverUrlOf(holder, undefined)
  const where = { '--url': '--url', TOOLGATE_URL: '$TOOLGATE_URL', 'running server': `the toolgate running on ${databaseOf(values.db).file}`, default: 'the default address, where a toolgate answers' }[from]
  if (from === 'default' && !(await toolgateAnswersAt(url))) {
    throw new UsageError(`--in-band needs toolgate's MCP endpoint: no --url, no $TOOLGATE_URL, no toolgate running on ${databaseOf(values.db).file} recorded its URL, and none answers at ${url}`,
      'give --url <base>/mcp: the base URL is what toolgate serve printed at start (toolgate doctor --db FILE shows it for a running server)')
  }
  console.error(`toolgate: note: asking ${mcpOf(url)} (${where}, plus /mcp; --url to ask another)`)
  return mcpOf(url)
}

/** The server's own words for an HTTP-level refusal (bad token, unknown profile …), found on the error's cause chain. */
function explain(e: unknown, url: string): Error {
  for (let c: unknown = e; c instanceof Error; c = c.cause) {
    if (c instanceof SdkHttpError) {
      // a page or the REST surface, not the MCP endpoint: POST is refused there
      if (c.status === 405 && !/\/mcp(\/|$)/.test(new URL(url).pathname)) return new Error(`${url} is not toolgate's MCP endpoint (it answered POST with HTTP 405): did you mean ${mcpOf(new URL(url).origin)}?`)
      const body = rpcErrorBody.safeParse((() => { try { return JSON.parse(String(c.data.text ?? '')) } catch { return null } })())
      if (body.success) return new Error(`${url} answered HTTP ${c.status}: ${body.data.error.message}`)
    }
  }
  return e instanceof Error ? e : new Error(String(e))
}

/**
 * Send the Shape A rider on tools/list with the official MCP client: 2026-07-28 when the
 * server offers it (the extension declared per request), else the 2025-11-25 convention.
 */
export async function sendRider(url: string, rider: Rider, token: string | undefined): Promise<Facet> {
  const client = new Client({ name: 'toolgate-cli', version: pkg.version }, {
    capabilities: { extensions: { [EXTENSION_ID]: legacySettings }, experimental: { [EXTENSION_ID]: legacySettings } },
    versionNegotiation: { mode: 'auto' },
  })
  const headers: Record<string, string> = token !== undefined ? { authorization: `Bearer ${token}` } : {}
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }))
  } catch (e) {
    throw explain(e, url)
  }
  try {
    // One page is enough: the facet rides on whichever page carries the rider.
    const result = await client.request({ method: 'tools/list', params: { _meta: { [EXTENSION_ID]: rider } } })
    const raw = result._meta?.[EXTENSION_ID]
    if (raw === undefined) throw new Error(`${url} answered tools/list without the ${EXTENSION_ID} facet: the server does not support the extension`)
    const facet = facetSchema.safeParse(raw)
    if (!facet.success) throw new Error(`${url} answered with a facet toolgate cannot read: ${facet.error.issues.map((i) => i.message).join('; ')}`)
    return facet.data
  } finally {
    await client.close()
  }
}

/** `toolgate tools preflight --in-band [--url <base>/mcp] [--token T] <ids…>`: exit 0/10/11/12 like out of band. */
export async function preflightInBand(values: InBandFlags, ids: string[], json: boolean): Promise<number> {
  for (const [flag, why] of notInBand) if (values[flag] !== undefined) throw new UsageError(`${why} (not available with --in-band)`)
  if (ids.length === 0) throw new UsageError('give at least one tool id (<server>:<tool>)')
  if (ids.length > MAX_RIDER_TOOLS) throw new UsageError(`too many tool ids: ${ids.length} (max ${MAX_RIDER_TOOLS} in band)`)
  const policy: Policy = {
    ...(values['read-only-only'] ? { read_only_only: true } : {}),
    ...(values['exclude-destructive'] ? { exclude_destructive: true } : {}),
    ...(values['exclude-open-world'] ? { exclude_open_world: true } : {}),
  }
  const token = values.token ?? envVar('TOOLGATE_AGENT_TOKEN')
  const facet = await sendRider(await endpointOf(values), { tools: ids.map((id) => ({ id })), ...(Object.keys(policy).length ? { policy } : {}) }, token)
  if (json) console.log(toJson(facet))
  else console.log(preflightTable({ verdict: facet.verdict, checked_at: facet.checked_at, request_id: facet.request_id ?? '', tools: facet.tools.map(toResult) }))
  return exitCodes[facet.verdict]
}
