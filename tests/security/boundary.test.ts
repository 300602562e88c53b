import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { operatorSessionHeaders } from '@/tests/helpers/session'
import { runCli } from '@/tests/helpers/cli'
import { activityCount, AGENT, demoState, LEGACY, OPERATOR_KEY, rider, startHarness, type Harness } from '@/tests/mcp/harness'

const root = path.resolve(import.meta.dirname, '..', '..')
let h: Harness
let session: Record<string, string>
beforeAll(async () => {
  h = await startHarness(demoState())
  session = await operatorSessionHeaders(h.db)
})
afterAll(async () => {
  await h?.server.stop()
})

/**
 * A raw HTTP request with exactly the headers given (fetch will not send a forged Host), as a
 * page that rebound its DNS name to 127.0.0.1 would reach toolgate.
 */
function raw(path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: h.server.port, path, method: opts.method ?? 'GET', headers: opts.headers ?? {} }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }))
    })
    req.on('error', reject)
    req.end(opts.body)
  })
}

const listBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LEGACY }
const own = () => `127.0.0.1:${h.server.port}`

describe('who may reach /mcp', () => {
  it('no credentials: 401 with a Bearer challenge, nothing evaluated; a token is served', async () => {
    const before = activityCount(h.db)
    const anon = await raw('/mcp', { method: 'POST', headers: { ...mcpHeaders, host: own() }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ops:wipe_cache', arguments: {} } }) })
    expect(anon.status).toBe(401)
    expect(anon.headers['www-authenticate']).toMatch(/^Bearer /)
    expect(activityCount(h.db)).toBe(before)
    const agent = await raw('/mcp', { method: 'POST', headers: { ...mcpHeaders, host: own(), authorization: `Bearer ${AGENT}` }, body: listBody })
    expect(agent.status).toBe(200)
  })

  it('an anonymous profile, once named, gives loopback callers exactly its scope and nothing wider', async () => {
    await h.reload({ ...demoState(), profiles: [...demoState().profiles!, { name: 'notes-only', servers: ['notes'] }] })
    const set = await runCli(['settings', 'set', 'mcp_anonymous_profile', 'notes-only', '--db', h.file])
    expect(set.code, set.stderr).toBe(0)
    const list = await raw('/mcp', { method: 'POST', headers: { ...mcpHeaders, host: own() }, body: listBody })
    expect(list.status).toBe(200)
    const names: string[] = JSON.parse(list.text).result.tools.map((t: { name: string }) => t.name)
    expect(names.filter((n) => n !== 'describe_tool').every((n) => n.startsWith('notes:'))).toBe(true)
    expect(names).toContain('notes:read_note')
    // a path profile can only narrow it further
    const ops = await raw('/mcp/p/ops', { method: 'POST', headers: { ...mcpHeaders, host: own() }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: rider(['billing:get_invoice', 'notes:read_note']) }) })
    expect(JSON.parse(ops.text).result._meta['app.mcpproxy/required-tools'].tools.map((t: { reason?: string; status: string }) => t.reason ?? t.status)).toEqual(['not_found', 'ready'])
    const unset = await runCli(['settings', 'set', 'mcp_anonymous_profile', 'null', '--db', h.file])
    expect(unset.code, unset.stderr).toBe(0)
    expect((await raw('/mcp', { method: 'POST', headers: { ...mcpHeaders, host: own() }, body: listBody })).status).toBe(401)
  })
})

/** The id of a real server action in this build (the sign-in action, which runs without a session). */
function actionId(exportedName: string): string {
  const manifest = JSON.parse(readFileSync(path.join(root, process.env.NEXT_DIST_DIR || '.next', 'server', 'server-reference-manifest.json'), 'utf8'))
  const hit = Object.entries(manifest.node as Record<string, { exportedName: string }>).find(([, v]) => v.exportedName === exportedName)
  if (!hit) throw new Error(`no server action ${exportedName} in the build`)
  return hit[0]
}

/** An error answer's message, whichever envelope carries it. */
function messageOf(text: string): string {
  try {
    const body = JSON.parse(text)
    return body.error?.message ?? body.error ?? text
  } catch {
    return text
  }
}

interface Surface { path: string; method: string; headers: Record<string, string>; body?: string; ok: number }

describe('Origin and Host: refused before anything runs, on every surface', () => {
  const surfaces = (): Record<string, Surface> => ({
    '/mcp': { path: '/mcp', method: 'POST', headers: { ...mcpHeaders, authorization: `Bearer ${AGENT}` }, body: listBody, ok: 200 },
    'REST preflight': { path: '/api/v1/preflight', method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': OPERATOR_KEY }, body: JSON.stringify({ tools: [{ id: 'notes:read_note' }] }), ok: 200 },
    'REST whoami': { path: '/api/v1/whoami', method: 'GET', headers: { 'x-api-key': OPERATOR_KEY }, ok: 200 },
    'a dashboard page': { path: '/servers/notes', method: 'GET', headers: session, ok: 200 },
    'a route handler': { path: '/api/dashboard/session', method: 'GET', headers: session, ok: 204 },
    // the sign-in action with a wrong key: it runs and answers (200) with its refusal
    'a server action': { path: '/login', method: 'POST', headers: { 'next-action': actionId('signIn'), 'content-type': 'text/plain;charset=UTF-8', accept: 'text/x-component' }, body: JSON.stringify([{ key: 'wrong', next: '/' }]), ok: 200 },
  })

  it.each(['/mcp', 'REST preflight', 'REST whoami', 'a dashboard page', 'a route handler', 'a server action'])('%s: a foreign Origin is 403, a foreign Host is 403, our own is served', async (name) => {
    const s = surfaces()[name]
    const before = activityCount(h.db)
    const foreignOrigin = await raw(s.path, { method: s.method, headers: { ...s.headers, host: own(), origin: 'http://evil.example' }, body: s.body })
    expect(foreignOrigin.status).toBe(403)
    expect(messageOf(foreignOrigin.text)).toContain('Origin "http://evil.example" may not use this toolgate')
    const rebound = await raw(s.path, { method: s.method, headers: { ...s.headers, host: 'evil.example', origin: 'http://evil.example' }, body: s.body })
    expect(rebound.status).toBe(403)
    expect(messageOf(rebound.text)).toContain('Host "evil.example" is not a name this toolgate serves')
    expect(activityCount(h.db)).toBe(before) // nothing ran
    const served = await raw(s.path, { method: s.method, headers: { ...s.headers, host: own(), origin: `http://${own()}` }, body: s.body })
    expect(served.status).toBe(s.ok)
    const byName = await raw(s.path, { method: s.method, headers: { ...s.headers, host: `localhost:${h.server.port}` }, body: s.body })
    expect(byName.status).toBe(s.ok)
  })
})

describe('malformed and unbounded input', () => {
  it.each(['/mcp/p/%ZZ', '/servers/%ZZ', '/activity/%E0%A4%A', '/tokens/%', '/api/v1/%ZZ'])('%s is a 400, not a 500', async (path) => {
    const r = await raw(path, { method: path.startsWith('/mcp') ? 'POST' : 'GET', headers: { host: own(), ...session, authorization: `Bearer ${AGENT}` } })
    expect(r.status).toBe(400)
    expect(r.text).toContain('malformed percent-encoding')
  })

  it.each([
    ['/%09/evil.example'], ['/%0a/evil.example'], ['/%0d/evil.example'], ['//evil.example'], ['/\\evil.example'], ['https://evil.example/'], ['/%2f%2fevil.example'],
    ['/.//evil.example/'], ['/%2e//evil.example'], ['/a/..//evil.example'],
  ])('a signed-in browser sent to /login?next=%s stays on the site', async (next) => {
    const r = await raw(`/login?next=${encodeURIComponent(next)}`, { headers: { host: own(), ...session } })
    expect(r.status).toBeLessThan(400)
    expect(r.status).toBeGreaterThanOrEqual(300)
    expect(r.headers.location).toBe('/')
    // and as the raw characters arrive, undecoded
    const rawNext = await raw(`/login?next=${next.replace(/\\/g, '%5C')}`, { headers: { host: own(), ...session } })
    expect(rawNext.status).toBeLessThan(500)
    if (rawNext.headers.location) expect(String(rawNext.headers.location)).toMatch(/^\/(?![/\\])/)
  })

  it.each(['/.//evil.example/', '/%2e//evil.example', '/a/..//evil.example'])('the sign-in action sends the browser on to %s only as "/"', async (next) => {
    const r = await raw('/login', { method: 'POST', headers: { host: own(), 'next-action': actionId('signIn'), 'content-type': 'text/plain;charset=UTF-8', accept: 'text/x-component' }, body: JSON.stringify([{ key: OPERATOR_KEY, next }]) })
    expect(r.status).toBe(200)
    expect(r.text).toContain('"ok":true')
    expect(r.text).toContain('"next":"/"')
    expect(r.text).not.toContain('evil.example')
  })

  it('a 20 KB tool id is a request error on every surface, quoting at most ~100 characters, and nothing is recorded', async () => {
    const id = `notes:${'x'.repeat(20_000)}`
    const before = activityCount(h.db)
    const rest = await fetch(`${h.server.url}/api/v1/preflight`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': OPERATOR_KEY }, body: JSON.stringify({ tools: [{ id }] }) })
    expect(rest.status).toBe(400)
    const restError: string = (await rest.json()).error
    expect(restError).toMatch(/tools\[0\]\.id: tool id "notes:x+… \(19906 more characters\)" is 20006 characters long \(max 256\)/)
    expect(restError.length).toBeLessThan(250)

    const inBand = await raw('/mcp', { method: 'POST', headers: { ...mcpHeaders, host: own(), authorization: `Bearer ${AGENT}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: rider([id]) }) })
    expect(JSON.parse(inBand.text).error).toMatchObject({ code: -32602, message: expect.stringContaining('(max 256)') })
    const describe = await raw('/mcp', { method: 'POST', headers: { ...mcpHeaders, host: own(), authorization: `Bearer ${AGENT}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'describe_tool', arguments: { tool_ids: [id], check: true } } }) })
    expect(JSON.parse(describe.text).error).toMatchObject({ code: -32602, message: expect.stringContaining('(max 256)') })

    const cli = await runCli(['tools', 'preflight', id, '--db', h.file])
    expect(cli.code).toBe(1)
    expect(cli.stderr).toMatch(/\(max 256\)/)
    expect(cli.stderr.length).toBeLessThan(300)
    const longProfile = await fetch(`${h.server.url}/api/v1/preflight`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': OPERATOR_KEY }, body: JSON.stringify({ tools: [{ id: 'notes:read_note' }], profile: 'p'.repeat(65) }) })
    expect(longProfile.status).toBe(400)
    expect((await longProfile.json()).error).toContain('profile: profile name must be at most 64 characters')
    expect(activityCount(h.db)).toBe(before)
  })

  it('server-action bodies that are oversized, deeply nested or not JSON are 4xx with a message', async () => {
    const post = (body: string, type = 'text/plain;charset=UTF-8') => raw('/login', { method: 'POST', headers: { host: own(), 'next-action': '00'.repeat(21), 'content-type': type }, body })
    const big = await post('"' + 'a'.repeat(1_100_000) + '"')
    expect(big.status).toBe(413)
    expect(messageOf(big.text)).toContain('request body exceeds 1048576 bytes')
    const deep = await post('['.repeat(5_000) + ']'.repeat(5_000))
    expect(deep.status).toBe(400)
    expect(deep.text).toContain('nests deeper than 64 levels')
    const garbage = await post('{not json')
    expect(garbage.status).toBe(400)
    expect(garbage.text).toContain('invalid JSON')
    const multipart = await post('--x--', 'multipart/form-data; boundary=x')
    expect(multipart.status).toBe(400)
  })

  it('a JSON-RPC method with newlines cannot forge log lines, and a huge one is cut', async () => {
    // a 2026-07-28 request whose Mcp-Method header disagrees with its body: the SDK rejects it and
    // toolgate logs the rejection, which quotes the body's method
    const send = (method: string) => raw('/mcp', {
      method: 'POST',
      headers: { ...mcpHeaders, host: own(), authorization: `Bearer ${AGENT}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method, params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
    })
    expect((await send('tools/list\n2026-11-30T00:00:00Z toolgate: FORGED admin login')).status).toBe(400)
    await send(`m${'x'.repeat(500_000)}`)
    const lines = h.server.log().split('\n')
    expect(lines.some((l) => l.includes('tools/list\\n2026-11-30T00:00:00Z toolgate: FORGED'))).toBe(true) // logged, escaped
    expect(lines.some((l) => l.startsWith('2026-11-30T00:00:00Z toolgate: FORGED'))).toBe(false)
    expect(lines.some((l) => l.includes('xxxxxxxxxx') && l.includes('more characters)'))).toBe(true)
    for (const line of lines) expect(line.length).toBeLessThan(10_000)
  })
})
