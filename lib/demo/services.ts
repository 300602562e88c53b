import 'server-only'
import { readFileSync } from 'node:fs'
import type { Tool } from '@modelcontextprotocol/server'
import type { Db } from '@/db/client'
import { dropCredentials, serverConfig, serverState, updateServer } from '@/db/queries/servers'
import { isStdio, type Transport } from '@/db/schema'
import { writeTransaction } from '@/db/write'
import { storedOf, wireOf } from '@/lib/core/definition'
import { mintRequestId } from '@/lib/activity/request-id'
import { recordChange } from '@/lib/activity/record-change'
import { secretTarget } from '@/lib/admin/upstreams'
import { jsonObjectSchema as messageSchema } from '@/lib/schemas/json'
import { describeTransport } from '@/lib/catalog/servers'
import { parseJson, readBody, sendJson } from '@/lib/http/json'
import { formatIssues } from '@/lib/schemas/issues'
import { demoStateFile } from '@/lib/state/demo'
import { parseStateFile } from '@/lib/state/load'
import { DemoAuthorizationServer } from './authorization-server'
import { listenOnLoopback, type Listening } from './loopback'
import { mcpHandler } from './mcp-upstream'

const SLACK_SCRIPT = 'demo/upstreams/slack.mjs'

/**
 * The demo state's two servers that stand on services `toolgate serve` starts in demo mode:
 * jira (Streamable HTTP, at its MCP endpoint) and slack (stdio, a client of the demo's Slack
 * workspace API, named by --workspace). The file gives a placeholder port where nothing
 * listens; each start points them at this run's free ports. A server counts as the demo's when
 * its URL is on 127.0.0.1 at the demo's path.
 */
const DEMO_SERVERS = {
  jira: {
    path: '/demo/jira/mcp',
    urlOf: (t: Transport) => (isStdio(t) ? null : t.url),
    withUrl: (t: Transport, url: string): Transport => ({ ...t, url }),
  },
  slack: {
    path: '/demo/slack',
    urlOf: (t: Transport) => (isStdio(t) && t.command === 'node' && t.args?.length === 3 && t.args[0] === SLACK_SCRIPT && t.args[1] === '--workspace' ? t.args[2] : null),
    withUrl: (t: Transport, url: string): Transport => ({ ...t, args: [SLACK_SCRIPT, '--workspace', url] }),
  },
} as const
type DemoServer = keyof typeof DEMO_SERVERS

const JIRA_SCOPES = ['tickets']
const ACTOR = 'toolgate:demo'
const SLACK_STUCK = 'slack is stuck: the demo\'s Slack workspace refuses it until an operator restarts it (a fault the demo stages; the runtime\'s own reconnects do not clear it). Restart the server: toolgate upstream restart slack'

export interface DemoServices {
  /** where each started server's transport now points: jira's MCP endpoint, slack's workspace */
  urls: Partial<Record<DemoServer, string>>
  /** the issuer of jira's authorization server, when jira was started */
  authorizationServer?: string
  close: () => Promise<void>
}

/**
 * Start the demo's services for the demo servers this database holds (none: nothing starts):
 * jira behind the demo's OAuth authorization server, so "Log in" works end to end; and slack's
 * workspace, which refuses slack until an operator restarts it, so "Restart" is what fixes it.
 * The servers' transports are pointed at this run's ports, on the record, before the runtime starts.
 */
export async function startDemoServices(db: Db): Promise<DemoServices | null> {
  const found = demoServersIn(db)
  if (!found.length) return null
  const listening: Listening[] = []
  const close = async () => void await Promise.all(listening.map((l) => l.close()))
  const services: DemoServices = { urls: {}, close }
  const listen = async (name: string) => {
    const l = await listenOnLoopback(name)
    listening.push(l)
    return l
  }
  try {
    if (found.includes('jira')) {
      const as = await listen('jira authorization server')
      services.urls.jira = serveJira(as, await listen('jira'), demoTools('jira'))
      services.authorizationServer = as.origin
    }
    if (found.includes('slack')) services.urls.slack = serveSlackWorkspace(await listen('slack workspace'), db)
    await pointDemoServersAt(db, services.urls)
  } catch (e) {
    await close()
    throw e
  }
  return services
}

function demoServersIn(db: Db): DemoServer[] {
  return (Object.keys(DEMO_SERVERS) as DemoServer[]).filter((name) => {
    const transport = serverConfig(db, name)?.transport
    const url = transport ? DEMO_SERVERS[name].urlOf(transport) : null
    if (!url || !URL.canParse(url)) return false
    const u = new URL(url)
    return u.protocol === 'http:' && u.hostname === '127.0.0.1' && u.pathname === DEMO_SERVERS[name].path
  })
}

/** The tools the demo state lists for a server, as MCP serves them: the same definitions, so the same pins. */
function demoTools(name: DemoServer): Tool[] {
  const state = parseStateFile(JSON.parse(readFileSync(demoStateFile(), 'utf8')))
  return state.servers.find((s) => s.name === name)?.tools.map((t) => wireOf(storedOf(t.name, t)) as Tool) ?? []
}

/**
 * jira: its authorization server on one port, its MCP endpoint on another, which answers only
 * tokens that server issued for it — anything else is a 401 naming its protected-resource
 * metadata (RFC 9728), where a client finds the authorization server.
 */
function serveJira(as: Listening, rs: Listening, tools: Tool[]): string {
  const { path: mcpPath } = DEMO_SERVERS.jira
  const resource = `${rs.origin}${mcpPath}`
  const metadataPath = `/.well-known/oauth-protected-resource${mcpPath}`
  const auth = new DemoAuthorizationServer(as.origin, resource, JIRA_SCOPES)
  as.serve(auth.handle)
  let tickets = 0
  const mcp = mcpHandler('jira', tools, () => ({ content: [{ type: 'text', text: `Created ticket DEMO-${++tickets} (a demo ticket: nothing left this machine)` }] }))
  rs.serve(async (req, res) => {
    const path = new URL(req.url ?? '/', rs.origin).pathname
    if (path === metadataPath && req.method === 'GET') {
      return sendJson(res, 200, { resource, authorization_servers: [as.origin], scopes_supported: JIRA_SCOPES, bearer_methods_supported: ['header'], resource_name: 'jira (toolgate demo)' })
    }
    if (path !== mcpPath) return sendJson(res, 404, { error: `no ${path} here: the MCP endpoint is ${resource}` })
    // one process: the resource server asks the authorization server's store instead of introspecting
    const bearer = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1]
    if (!bearer || !auth.verify(bearer)) {
      const challenge = `Bearer resource_metadata="${rs.origin}${metadataPath}", scope="${JIRA_SCOPES.join(' ')}"${bearer ? ', error="invalid_token"' : ''}`
      return sendJson(res, 401, { error: 'invalid_token', error_description: bearer ? 'the access token is unknown, expired or not for this server' : 'jira needs an access token: log in' }, { 'www-authenticate': challenge })
    }
    return mcp(req, res)
  })
  return resource
}

/**
 * The Slack workspace API that demo/upstreams/slack.mjs talks to. It refuses slack, saying why,
 * until an operator asks for a restart after it started; then it serves for the rest of the run.
 * Every process the runtime starts by itself meets the same refusal — the runtime cannot know a
 * restart would help — so slack reads unhealthy, with that reason as its detail, until someone
 * presses Restart.
 */
function serveSlackWorkspace(l: Listening, db: Db): string {
  const base = `${l.origin}${DEMO_SERVERS.slack.path}`
  const startedAt = Date.now()
  let stuck = true
  let posted = 0
  l.serve(async (req, res) => {
    const path = new URL(req.url ?? '/', l.origin).pathname
    const route = `${req.method} ${path}`
    if (route !== `GET ${DEMO_SERVERS.slack.path}/session` && route !== `POST ${DEMO_SERVERS.slack.path}/messages`) {
      return sendJson(res, 404, { error: `no ${route} here: the workspace API is GET ${base}/session and POST ${base}/messages` })
    }
    stuck &&= (serverState(db, 'slack')?.restartRequestedAt ?? 0) <= startedAt
    if (stuck) return sendJson(res, 503, { error: SLACK_STUCK })
    if (req.method === 'GET') return sendJson(res, 200, { ok: true })
    const message = messageSchema.safeParse(parseJson(await readBody(req)))
    if (!message.success) return sendJson(res, 400, { error: `a message is a JSON object: ${formatIssues(message.error)}` })
    return sendJson(res, 200, { text: `Posted message ${++posted} to the demo workspace (nothing left this machine): ${JSON.stringify(message.data)}` })
  })
  return base
}

/**
 * Point each demo server at this run's port, on the record. What it stored for the previous
 * run's target (its OAuth client registration and tokens, any secret) is dropped, as any change
 * of target drops a server's secrets (secretTarget): jira waits for a login again instead of
 * presenting credentials to whatever now listens on last run's port.
 */
async function pointDemoServersAt(db: Db, urls: Partial<Record<DemoServer, string>>): Promise<void> {
  const now = Date.now()
  const ctx = { actor: ACTOR, requestId: mintRequestId(now) }
  await writeTransaction(db, (tx) => {
    for (const name of Object.keys(urls) as DemoServer[]) {
      const before = serverConfig(tx, name)?.transport
      if (!before) continue
      const after = DEMO_SERVERS[name].withUrl(before, urls[name]!)
      updateServer(tx, name, { transport: after, updatedAt: now })
      const moved = secretTarget(before) !== secretTarget(after)
      if (moved) dropCredentials(tx, name)
      recordChange(tx, 'server.transport_changed', ctx, {
        target: name, before: { transport: describeTransport(before) }, after: { transport: describeTransport(after) },
        note: `demo mode: the demo's services listen on free ports, new each start${moved ? '; stored secrets and OAuth credentials of earlier runs were dropped' : ''}`,
      }, { server: name, now })
    }
  })
}
