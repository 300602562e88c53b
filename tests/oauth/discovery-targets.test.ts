import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '@/db/client'
import { serverOauth } from '@/db/schema'
import { sealOauth } from '@/db/secrets'
import { addServer } from '@/lib/admin/upstreams'
import { inspectServer } from '@/lib/upstream/connection'
import { startLogin } from '@/lib/upstream/oauth'
import { freshDb } from '@/tests/helpers/db'

/** A loopback HTTP server answering from a table of paths, counting every request it gets. */
interface Host { origin: string; hits: string[]; routes: Map<string, (req: http.IncomingMessage, res: http.ServerResponse) => void>; close: () => Promise<void> }
async function host(): Promise<Host> {
  const hits: string[] = []
  const routes: Host['routes'] = new Map()
  const server = http.createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname
    hits.push(`${req.method} ${path}`)
    const route = routes.get(path)
    if (route) return route(req, res)
    res.writeHead(404).end()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, routes,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()) }),
  }
}
const json = (body: unknown, status = 200) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}
/** An MCP endpoint that challenges every request, naming its resource metadata where told. */
const challenge = (resourceMetadata: string) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${resourceMetadata}"` }).end()
}
const asMetadata = (issuer: string, over: Record<string, unknown> = {}) => ({
  issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, registration_endpoint: `${issuer}/register`,
  response_types_supported: ['code'], code_challenge_methods_supported: ['S256'], token_endpoint_auth_methods_supported: ['none'], ...over,
})

const ctx = { actor: 'test' }
let db: Db
let mcp: Host // the MCP server (loopback, like every test server)
let issuer: Host // its authorization server, on another loopback port
let elsewhere: Host // a target nothing may reach
let n = 0

beforeAll(async () => {
  ;({ db } = freshDb())
  ;[mcp, issuer, elsewhere] = await Promise.all([host(), host(), host()])
})
afterAll(async () => {
  await Promise.all([mcp, issuer, elsewhere].map((h) => h?.close()))
})

/** A fresh server name at a fresh path on the MCP host, with its routes set up by `setup`. */
async function serverWith(setup: (path: string) => void, opts: { quarantined?: boolean } = {}): Promise<string> {
  const name = `s${++n}`
  mcp.routes.clear(); issuer.routes.clear(); elsewhere.routes.clear()
  mcp.hits.length = 0; issuer.hits.length = 0; elsewhere.hits.length = 0
  setup(`/${name}/mcp`)
  await addServer(db, { name, transport: { url: `${mcp.origin}/${name}/mcp` }, trusted: !opts.quarantined }, ctx)
  return name
}
const login = (name: string) => startLogin(db, name, { baseUrl: 'http://127.0.0.1:9' }, ctx)

describe('OAuth discovery stays on the MCP server\'s origin and its issuer\'s', () => {
  it('a loopback server may use an issuer on another loopback port (as the demo\'s jira does)', async () => {
    const name = await serverWith((path) => {
      mcp.routes.set(path, challenge(`${mcp.origin}/.well-known/oauth-protected-resource${path}`))
      mcp.routes.set(`/.well-known/oauth-protected-resource${path}`, json({ resource: `${mcp.origin}${path}`, authorization_servers: [issuer.origin] }))
      issuer.routes.set('/.well-known/oauth-authorization-server', json(asMetadata(issuer.origin)))
      issuer.routes.set('/register', json({ client_id: 'c1', redirect_uris: ['http://127.0.0.1:9/api/upstream/oauth/callback'] }, 201))
    })
    const r = await login(name)
    expect('url' in r && new URL(r.url).origin).toBe(issuer.origin)
    expect(issuer.hits).toContain('POST /register')
  })

  it('refuses resource metadata the challenge names on another origin, and never fetches it', async () => {
    const name = await serverWith((path) => {
      mcp.routes.set(path, challenge(`${elsewhere.origin}/metadata`))
      elsewhere.routes.set('/metadata', json({ resource: `${mcp.origin}${path}`, authorization_servers: [elsewhere.origin] }))
    })
    await expect(login(name)).rejects.toThrow(`the server names its protected-resource metadata at ${elsewhere.origin}/metadata, outside its own origin (${mcp.origin}): OAuth discovery stays on the MCP server's own origin and its issuer's`)
    expect(elsewhere.hits).toEqual([])
  })

  it('refuses a registration endpoint outside the issuer\'s origin before posting anything to it', async () => {
    const name = await serverWith((path) => {
      mcp.routes.set(path, challenge(`${mcp.origin}/.well-known/oauth-protected-resource${path}`))
      mcp.routes.set(`/.well-known/oauth-protected-resource${path}`, json({ resource: `${mcp.origin}${path}`, authorization_servers: [issuer.origin] }))
      issuer.routes.set('/.well-known/oauth-authorization-server', json(asMetadata(issuer.origin, { registration_endpoint: `${elsewhere.origin}/register` })))
    })
    await expect(login(name)).rejects.toThrow(`the registration_endpoint ${elsewhere.origin}/register is outside the issuer's origin (${issuer.origin})`)
    expect(elsewhere.hits).toEqual([])
  })

  it('refuses metadata that names another issuer than the one it was fetched for', async () => {
    const name = await serverWith((path) => {
      mcp.routes.set(path, challenge(`${mcp.origin}/.well-known/oauth-protected-resource${path}`))
      mcp.routes.set(`/.well-known/oauth-protected-resource${path}`, json({ resource: `${mcp.origin}${path}`, authorization_servers: [issuer.origin] }))
      issuer.routes.set('/.well-known/oauth-authorization-server', json(asMetadata(elsewhere.origin)))
    })
    await expect(login(name)).rejects.toThrow(`the authorization server metadata fetched for ${issuer.origin}/ names another issuer (${elsewhere.origin})`)
    expect(elsewhere.hits).toEqual([])
  })

  it('a 2025-03-26 server without resource metadata is its own authorization server: an issuer on its origin, not elsewhere', async () => {
    const legacy = (issuerName: string) => serverWith((path) => {
      mcp.routes.set(path, (_req, res) => res.writeHead(401).end())
      mcp.routes.set('/.well-known/oauth-authorization-server', json(asMetadata(issuerName, { authorization_endpoint: `${mcp.origin}/authorize`, token_endpoint: `${mcp.origin}/token`, registration_endpoint: `${mcp.origin}/register` })))
      mcp.routes.set('/register', json({ client_id: 'c1', redirect_uris: ['http://127.0.0.1:9/api/upstream/oauth/callback'] }, 201))
    })
    const ok = await login(await legacy(`${mcp.origin}/oauth`))
    expect('url' in ok && new URL(ok.url).origin).toBe(mcp.origin)
    await expect(login(await legacy(elsewhere.origin))).rejects.toThrow(`the authorization server metadata fetched for ${mcp.origin}/ names another issuer (${elsewhere.origin})`)
    expect(elsewhere.hits).toEqual([])
  })

  it('refuses a redirect that leaves the allowed origins, naming both ends, and never follows it', async () => {
    const name = await serverWith((path) => {
      mcp.routes.set(path, challenge(`${mcp.origin}/.well-known/oauth-protected-resource${path}`))
      mcp.routes.set(`/.well-known/oauth-protected-resource${path}`, (_req, res) => res.writeHead(307, { location: `${elsewhere.origin}/metadata` }).end())
    })
    await expect(login(name)).rejects.toThrow(`${mcp.origin}/.well-known/oauth-protected-resource/${name}/mcp redirects to ${elsewhere.origin}/metadata, refused: ${elsewhere.origin}/metadata is on neither the MCP server's origin (${mcp.origin}) nor its issuer's`)
    expect(elsewhere.hits).toEqual([])
  })

  it('refuses a login to a quarantined server before sending it anything', async () => {
    const name = await serverWith((path) => mcp.routes.set(path, challenge(`${mcp.origin}/.well-known/oauth-protected-resource${path}`)), { quarantined: true })
    await expect(login(name)).rejects.toThrow(`server "${name}" is quarantined: toolgate does not log in to a server under review. Release it first (toolgate upstream unquarantine ${name}), then log in`)
    expect(mcp.hits).toEqual([])
  })
})

describe('the runtime\'s OAuth requests', () => {
  it('a token refresh goes to the issuer without the headers configured for the MCP server', async () => {
    const seenByIssuer: http.IncomingHttpHeaders[] = []
    const seenByServer: http.IncomingHttpHeaders[] = []
    const name = await serverWith((path) => {
      mcp.routes.set(path, async (req, res) => {
        seenByServer.push(req.headers)
        if (req.headers.authorization !== 'Bearer fresh') return challenge(`${mcp.origin}/.well-known/oauth-protected-resource${path}`)(req, res)
        const s = new Server({ name: 'guarded', version: '1.0.0' }, { capabilities: { tools: {} } })
        s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'whoami', inputSchema: { type: 'object' } }] }))
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
        await s.connect(transport)
        res.on('close', () => void s.close())
        return transport.handleRequest(req, res)
      })
      issuer.routes.set('/token', (req, res) => {
        seenByIssuer.push(req.headers)
        json({ access_token: 'fresh', token_type: 'Bearer', expires_in: 3600, refresh_token: 'r2' })(req, res)
      })
    })
    // a server logged in before (stale token, its refresh token, discovery done), with a header secret
    const url = `${mcp.origin}/${name}/mcp`
    db.insert(serverOauth).values({
      serverName: name,
      ...sealOauth(db, { clientInformation: { client_id: 'c1' }, tokens: { access_token: 'stale', token_type: 'Bearer', refresh_token: 'r1' } }),
      discovery: { authorizationServerUrl: issuer.origin, resourceMetadata: { resource: url, authorization_servers: [issuer.origin] }, authorizationServerMetadata: asMetadata(issuer.origin) },
      updatedAt: Date.now(),
    }).run()
    const spec = { name, transport: { url, secrets: ['X-Api-Key'] }, secrets: { 'X-Api-Key': 'k-secret' }, sampling: 'relay' as const }
    expect(await inspectServer(db, spec, { baseUrl: 'http://127.0.0.1:9', connectTimeoutMs: 30_000 }, () => undefined)).toBe(1)
    expect(seenByIssuer).toHaveLength(1)
    expect(seenByIssuer[0]['x-api-key']).toBeUndefined()
    expect(seenByServer.at(-1)?.['x-api-key']).toBe('k-secret')
  })
})
