import { createHash, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { eq } from 'drizzle-orm'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDb, type Db } from '@/db/client'
import { listActivity } from '@/db/queries/activity'
import { serverConfig } from '@/db/queries/servers'
import { serverOauth } from '@/db/schema'
import { sealOauth } from '@/db/secrets'
import { requestRestart } from '@/lib/admin/upstreams'
import { startDemoServices, type DemoServices } from '@/lib/demo/services'
import { demoStateFile } from '@/lib/state/demo'
import { loadState } from '@/lib/state/load'
import { freePort } from '@/tests/helpers/server'

// The demo's services in this process, on an in-memory demo database: jira's authorization
// server and resource server over real HTTP, and the Slack workspace that keeps slack stuck
// until it is restarted (with real demo/upstreams/slack.mjs processes).
const REDIRECT = 'http://127.0.0.1:9/api/upstream/oauth/callback' // never contacted: redirects are read, not followed
let db: Db
let demo: DemoServices
let as: string
let jira: string

beforeAll(async () => {
  db = openDb(':memory:')
  await loadState(db, JSON.parse(readFileSync(demoStateFile(), 'utf8')), 'test')
  // what an earlier run's login left behind
  await db.insert(serverOauth).values({ serverName: 'jira', ...sealOauth(db, { tokens: { access_token: 'from-an-earlier-run', token_type: 'Bearer' } }), updatedAt: Date.now() }).run()
  demo = (await startDemoServices(db))!
  as = demo.authorizationServer!
  jira = demo.urls.jira!
})
afterAll(async () => {
  await demo?.close()
})

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

async function register(redirectUris = [REDIRECT]): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${as}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'test client', redirect_uris: redirectUris }) })
  return { status: res.status, body: await res.json() }
}

const authorizeUrl = (clientId: string, challenge: string, extra: Record<string, string> = {}) => `${as}/authorize?${new URLSearchParams({
  response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 'st4te', resource: jira, ...extra,
})}`

/** The consent page's one-time request id. */
async function consent(clientId: string, challenge: string): Promise<string> {
  const page = await fetch(authorizeUrl(clientId, challenge), { redirect: 'manual' })
  expect(page.status).toBe(200)
  const html = await page.text()
  expect(html).toContain('>Approve</button>')
  return /name="request" value="([^"]+)"/.exec(html)![1]
}

async function decide(request: string, decision: 'approve' | 'deny'): Promise<Response> {
  return fetch(`${as}/authorize`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ request, decision }) })
}

/** A client, and one approved code for it with its PKCE verifier. */
async function approvedCode(): Promise<{ clientId: string; code: string; verifier: string }> {
  const clientId = String((await register()).body.client_id)
  const { verifier, challenge } = pkce()
  const back = new URL((await decide(await consent(clientId, challenge), 'approve')).headers.get('location')!)
  expect(back.origin + back.pathname).toBe(REDIRECT)
  expect(back.searchParams.get('state')).toBe('st4te')
  return { clientId, code: back.searchParams.get('code')!, verifier }
}

async function token(form: Record<string, string>): Promise<{ status: number; body: Record<string, string> }> {
  const res = await fetch(`${as}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) })
  return { status: res.status, body: await res.json() }
}

const exchange = (c: { clientId: string; code: string; verifier: string }) =>
  token({ grant_type: 'authorization_code', code: c.code, redirect_uri: REDIRECT, client_id: c.clientId, code_verifier: c.verifier, resource: jira })

/** tools/list on an MCP endpoint (stateless, JSON answers). */
async function listTools(url: string, bearer?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })
}

describe('starting the demo services', () => {
  it('points jira and slack at this run\'s loopback ports, on the record, and drops credentials of earlier runs', () => {
    expect(jira).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/demo\/jira\/mcp$/)
    expect(demo.urls.slack).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/demo\/slack$/)
    expect(serverConfig(db, 'jira')?.transport).toEqual({ url: jira })
    expect(serverConfig(db, 'slack')?.transport).toEqual({ command: 'node', args: ['demo/upstreams/slack.mjs', '--workspace', demo.urls.slack] })
    expect(db.select().from(serverOauth).where(eq(serverOauth.serverName, 'jira')).get()).toBeUndefined()
    const records = listActivity(db, { type: 'server.transport_changed' })
    expect(records.map((r) => [r.server, r.actor, r.data])).toEqual(expect.arrayContaining([
      ['jira', 'toolgate:demo', expect.objectContaining({ before: { transport: 'http://127.0.0.1:7312/demo/jira/mcp' }, after: { transport: jira } })],
      ['slack', 'toolgate:demo', expect.objectContaining({
        before: { transport: 'node demo/upstreams/slack.mjs --workspace http://127.0.0.1:7311/demo/slack' }, after: { transport: `node demo/upstreams/slack.mjs --workspace ${demo.urls.slack}` },
      })],
    ]))
  })

  it('starts nothing for a database without the demo\'s servers', async () => {
    expect(await startDemoServices(openDb(':memory:'))).toBeNull()
  })
})

describe('jira behind the demo authorization server', () => {
  it('answers a request without a token with 401 naming its protected-resource metadata, which names the authorization server', async () => {
    const res = await listTools(jira)
    expect(res.status).toBe(401)
    const challenge = res.headers.get('www-authenticate')!
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1]
    expect(challenge).toContain('scope="tickets"')
    const prm = await (await fetch(metadataUrl)).json()
    expect(prm).toMatchObject({ resource: jira, authorization_servers: [as], scopes_supported: ['tickets'] })
    const meta = await (await fetch(`${as}/.well-known/oauth-authorization-server`)).json()
    expect(meta).toMatchObject({ issuer: as, code_challenge_methods_supported: ['S256'], registration_endpoint: `${as}/register`, grant_types_supported: ['authorization_code', 'refresh_token'] })
  })

  it('serves the tools the demo state lists for jira once a token is issued, exactly as defined', async () => {
    const { body } = await exchange(await approvedCode())
    const res = await listTools(jira, body.access_token)
    expect(res.status).toBe(200)
    const state = JSON.parse(readFileSync(demoStateFile(), 'utf8'))
    const t = state.servers.find((s: { name: string }) => s.name === 'jira').tools[0]
    expect((await res.json()).result.tools).toEqual([{ name: t.name, description: t.description, inputSchema: t.input_schema, annotations: t.annotations }])
  })

  it('refuses an unknown client: at /authorize without redirecting anywhere, at /token as invalid_client', async () => {
    const { challenge, verifier } = pkce()
    const page = await fetch(authorizeUrl('demo_client_nobody', challenge), { redirect: 'manual' })
    expect(page.status).toBe(400)
    expect(page.headers.get('location')).toBeNull()
    expect(await page.text()).toContain('Unknown client')
    const { code } = await approvedCode()
    const r = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: 'demo_client_nobody', code_verifier: verifier })
    expect(r).toMatchObject({ status: 401, body: { error: 'invalid_client' } })
  })

  it('refuses a bad PKCE verifier, and the attempt spends the code', async () => {
    const c = await approvedCode()
    const wrong = await exchange({ ...c, verifier: pkce().verifier })
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: expect.stringContaining('code_verifier does not match') } })
    expect(await exchange(c)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
  })

  it('refuses a reused code and revokes the tokens it bought', async () => {
    const c = await approvedCode()
    const first = await exchange(c)
    expect(first.status).toBe(200)
    expect((await listTools(jira, first.body.access_token)).status).toBe(200)
    const again = await exchange(c)
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: expect.stringContaining('already used') } })
    const revoked = await listTools(jira, first.body.access_token)
    expect(revoked.status).toBe(401)
    expect(revoked.headers.get('www-authenticate')).toContain('error="invalid_token"')
    expect(await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: c.clientId })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
  })

  it('rotates refresh tokens: each works once', async () => {
    const c = await approvedCode()
    const { body } = await exchange(c)
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: c.clientId, resource: jira })
    expect(refreshed).toMatchObject({ status: 200, body: { token_type: 'Bearer', scope: 'tickets' } })
    expect((await listTools(jira, refreshed.body.access_token)).status).toBe(200)
    expect(await token({ grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: c.clientId })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
  })

  it('refuses what OAuth 2.1 refuses: plain PKCE, another resource, a non-loopback http redirect, a replayed consent; a denial is access_denied', async () => {
    const clientId = String((await register()).body.client_id)
    const errorOf = async (extra: Record<string, string>) => new URL((await fetch(authorizeUrl(clientId, pkce().challenge, extra), { redirect: 'manual' })).headers.get('location')!).searchParams.get('error')
    expect(await errorOf({ code_challenge_method: 'plain' })).toBe('invalid_request')
    expect(await errorOf({ resource: 'http://127.0.0.1:9/elsewhere' })).toBe('invalid_target')
    expect(await errorOf({ scope: 'admin' })).toBe('invalid_scope')
    expect(await register(['http://example.com/callback'])).toMatchObject({ status: 400, body: { error: 'invalid_redirect_uri' } })
    const request = await consent(clientId, pkce().challenge)
    expect(new URL((await decide(request, 'deny')).headers.get('location')!).searchParams.get('error')).toBe('access_denied')
    expect((await decide(request, 'approve')).status).toBe(400) // answered once already
    expect((await token({ grant_type: 'password', client_id: clientId })).body.error).toBe('unsupported_grant_type')
  })
})

describe("the demo's services keep toolgate's boundary (Host and Origin)", () => {
  /** A request with exactly this Host (fetch would not send a forged one). */
  const raw = (url: string, headers: Record<string, string>, method = 'GET') => new Promise<{ status: number; text: string }>((resolve, reject) => {
    const u = new URL(url)
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method, headers }, (res) => {
      let text = ''
      res.on('data', (c) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode!, text }))
    })
    req.on('error', reject)
    req.end(method === 'POST' ? 'grant_type=refresh_token&refresh_token=x&client_id=y' : undefined)
  })

  it('the authorization server refuses a rebound Host and a foreign Origin before anything runs, and serves its own', async () => {
    const metadata = `${as}/.well-known/oauth-authorization-server`
    const host = new URL(as).host
    const rebound = await raw(metadata, { host: 'evil.example' })
    expect(rebound.status).toBe(403)
    expect(rebound.text).toContain('Host "evil.example" is not a name this toolgate serves')
    const foreign = await raw(`${as}/token`, { host, origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' }, 'POST')
    expect(foreign.status).toBe(403)
    expect(foreign.text).toContain('Origin "http://evil.example" may not use this toolgate')
    expect((await raw(metadata, { host })).status).toBe(200)
    expect((await raw(metadata, { host: host.replace('127.0.0.1', 'localhost') })).status).toBe(200)
  })

  it('so does the demo jira', async () => {
    expect((await raw(jira, { host: 'evil.example' })).status).toBe(403)
  })
})

describe('slack, stuck until restarted', () => {
  /** tools/list of a fresh demo/upstreams/slack.mjs process (each runtime reconnect starts one) */
  async function listFromNewProcess() {
    const client = new Client({ name: 'test', version: '1.0.0' })
    await client.connect(new StdioClientTransport({ command: process.execPath, args: ['demo/upstreams/slack.mjs', '--workspace', demo.urls.slack!], stderr: 'pipe' }))
    try {
      return await client.listTools()
    } finally {
      await client.close()
    }
  }

  it('every new process fails tools/list saying why, until an operator restarts slack; then it serves its tools as the demo state defines them', async () => {
    for (let i = 0; i < 2; i++) await expect(listFromNewProcess()).rejects.toThrow(/slack is stuck.*toolgate upstream restart slack/)
    await requestRestart(db, 'slack', { actor: 'test' })
    const state = JSON.parse(readFileSync(demoStateFile(), 'utf8'))
    const t = state.servers.find((s: { name: string }) => s.name === 'slack').tools[0]
    expect((await listFromNewProcess()).tools).toEqual([{ name: t.name, description: t.description, inputSchema: t.input_schema, annotations: t.annotations }])
  })

  it('refuses to start without a workspace, and reports an unreachable one', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' })
    await expect(client.connect(new StdioClientTransport({ command: process.execPath, args: ['demo/upstreams/slack.mjs'], stderr: 'pipe' }))).rejects.toThrow()
    const nobody = `http://127.0.0.1:${await freePort()}/demo/slack`
    const offline = new Client({ name: 'test', version: '1.0.0' })
    await offline.connect(new StdioClientTransport({ command: process.execPath, args: ['demo/upstreams/slack.mjs', '--workspace', nobody], stderr: 'pipe' }))
    await expect(offline.listTools()).rejects.toThrow(`slack cannot reach the Slack workspace at ${nobody}: ECONNREFUSED`)
    await offline.close()
  })
})
