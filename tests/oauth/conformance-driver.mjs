// The "client under test" for the MCP conformance suite's client scenarios: toolgate itself,
// used the way an operator does. The suite starts a mock MCP server (and authorization server)
// and runs this script with the mock's URL as the last argument. The script:
//   1. starts `toolgate serve` on a fresh database, with one agent token;
//   2. adds the mock as an HTTP upstream (`toolgate upstream add`, with client credentials when
//      the scenario hands some over in MCP_CONFORMANCE_CONTEXT);
//   3. when the upstream needs a login, runs `toolgate upstream login`, then plays the browser:
//      opens the authorization URL and follows its redirects back to toolgate's callback (or,
//      with TOOLGATE_CONFORMANCE_LOGIN=dashboard, presses the dashboard's "Log in" in Chromium);
//   4. once the upstream is ready, calls its tools through toolgate's /mcp with the MCP SDK;
// and exits 0 only when all of that worked. Everything it does is printed to stderr.
import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

const root = path.resolve(import.meta.dirname, '..', '..')
const bin = path.join(root, 'bin', 'toolgate.mjs')
const serverUrl = process.argv.at(-1)
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '(none)'
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}')
const KEY = 'tg_op_conformance_key_0000000000'
const TOKEN = 'tg_at_conformance_agent_0000'
const log = (...a) => console.error(`[driver ${scenario}]`, ...a)
// TOOLGATE_CONFORMANCE_LOGIN=dashboard: log in by pressing the dashboard's button in Chromium
const viaDashboard = process.env.TOOLGATE_CONFORMANCE_LOGIN === 'dashboard'

const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-conformance-'))
const env = {
  ...process.env, TOOLGATE_DB: path.join(dir, 'toolgate.db'), TOOLGATE_API_KEY: KEY, TOOLGATE_RUNTIME: 'on',
  TOOLGATE_BACKOFF_BASE_MS: '200', TOOLGATE_BACKOFF_MAX_MS: '800', TOOLGATE_CONNECT_TIMEOUT_MS: '5000', NEXT_TELEMETRY_DISABLED: '1',
}
// Asynchronous on purpose: a blocked event loop would reuse a kept-alive socket the server closed
// meanwhile, and the next request would fail with "fetch failed".
const cli = (args, input) => new Promise((resolve, reject) => {
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d))
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d))
  child.on('error', reject)
  child.on('close', (status) => {
    log(`toolgate ${args.join(' ')} → exit ${status}${stdout.trim() ? `\n${stdout.trim()}` : ''}${stderr.trim() ? `\n${stderr.trim()}` : ''}`)
    resolve({ status, stdout, stderr })
  })
  child.stdin.end(input)
})
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const freePort = () => new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)) })
})
async function until(what, fn, ms = 15_000) {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(150)
  }
}

let server
async function main() {
  await cli(['state', 'load', '-'], JSON.stringify({ version: 1, servers: [], agent_tokens: [{ name: 'conformance', token: TOKEN, allowed_servers: ['*'] }] }))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  server = spawn(process.execPath, [bin, 'serve', '--port', String(port), '--host', '127.0.0.1', '--no-demo'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  server.stdout.on('data', (d) => process.stderr.write(`[toolgate] ${d}`))
  server.stderr.on('data', (d) => process.stderr.write(`[toolgate] ${d}`))
  await until('toolgate listening', () => fetch(`${base}/api/v1/whoami`, { headers: { 'x-api-key': KEY } }).then((r) => r.ok, () => false), 60_000)

  const keyFile = path.join(dir, 'client-key.pem')
  if (context.private_key_pem) writeFileSync(keyFile, context.private_key_pem)
  const credentials = context.client_id ? [
    '--client-id', context.client_id,
    ...(context.client_secret ? ['--client-secret', context.client_secret] : []),
    ...(context.private_key_pem ? ['--client-key-file', keyFile, '--client-key-alg', context.signing_algorithm ?? 'RS256'] : []),
  ] : []
  const grant = /client-credentials/.test(scenario) ? ['--oauth', 'client-credentials'] : []
  // the metadata document URL the suite's authorization server expects an operator to have configured
  const cimd = scenario === 'auth/basic-cimd' ? ['--client-metadata-url', 'https://conformance-test.local/client-metadata.json'] : []
  if ((await cli(['upstream', 'add', 'conf', '--url', serverUrl, '--trusted', ...credentials, ...grant, ...cimd])).status !== 0) throw new Error('upstream add failed')

  const state = async () => JSON.parse((await cli(['upstream', 'list', '-o', 'json'])).stdout).find((s) => s.name === 'conf')
  const settled = await until('the upstream to connect or ask for a login', async () => {
    const s = await state()
    return ['ready', 'pending_auth', 'error'].includes(s?.connection) ? s : undefined
  })
  if (settled.connection !== 'ready') await login(settled)

  const client = new Client({ name: 'conformance-through-toolgate', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }))
  const tools = (await client.listTools()).tools.filter((t) => t.name.startsWith('conf:'))
  log(`tools through toolgate: ${tools.map((t) => t.name).join(', ')}`)
  for (const t of tools) {
    const args = t.name === 'conf:add_numbers' ? { a: 2, b: 3 } : {}
    let r = await client.callTool({ name: t.name, arguments: args })
    log(`${t.name} → ${JSON.stringify(r).slice(0, 200)}`)
    // a call refused for want of a scope (step-up): the operator logs in once more, and it works
    const after = await until('the upstream to settle', async () => { const s = await state(); return s?.connection !== 'connecting' && s?.connection !== 'discovering' ? s : undefined })
    if (r.isError && after.connection === 'pending_auth') {
      await login(after)
      r = await client.callTool({ name: t.name, arguments: args })
      log(`${t.name} (after a second login) → ${JSON.stringify(r).slice(0, 200)}`)
    }
    if (r.isError) throw new Error(`${t.name} failed through toolgate`)
  }
  await client.close()

  async function login(s) {
    log(`upstream is ${s.connection} (${s.detail ?? ''}): logging in${viaDashboard ? ' from the dashboard' : ''}`)
    if (viaDashboard) return dashboardLogin()
    const out = await cli(['upstream', 'login', 'conf', '--url', base])
    const url = out.stdout.trim().split('\n').at(-1)
    if (out.status !== 0 || !/^https?:/.test(url)) throw new Error('upstream login did not give an authorization URL')
    // the browser: follow the authorization server's redirects until toolgate's callback answers
    let next = url
    for (let hop = 0; hop < 10 && next; hop++) {
      // a browser retries a GET whose kept-alive connection the server had just closed; so does this one
      const res = await fetch(next, { redirect: 'manual' }).catch(() => fetch(next, { redirect: 'manual' }))
      log(`browser: GET ${next} → ${res.status}`)
      const location = res.headers.get('location')
      next = location ? new URL(location, next).href : undefined
      if (!location && !res.ok) throw new Error(`the login failed at ${res.url}: ${res.status} ${(await res.text()).slice(0, 300)}`)
    }
    await until('the upstream ready after login', async () => (await state())?.connection === 'ready', 15_000)
  }

  // An operator in Chromium: sign in, open the server's page, press "Log in"; the authorization
  // server (the suite's, approving at once) sends the browser to toolgate's callback and back.
  async function dashboardLogin() {
    const { chromium } = await import('playwright-core')
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] })
    try {
      const page = await (await browser.newContext({ baseURL: base })).newPage()
      const visited = []
      page.on('framenavigated', (f) => { if (f === page.mainFrame()) visited.push(f.url()) })
      await page.goto('/login')
      await page.getByLabel('Operator API key').fill(KEY)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL((u) => u.pathname === '/')
      await page.goto('/servers/conf')
      await page.getByRole('button', { name: /^Log in/ }).first().click()
      await until('the upstream ready after the dashboard login', async () => (await state())?.connection === 'ready', 20_000)
      await page.waitForLoadState()
      log(`browser showed: ${visited.join(' → ')}`)
      // The suite's authorization server approves at once (its /authorize answers with a redirect,
      // which the suite's own checks see), so the browser shows no page of it; what proves the
      // button did the login is the record: started by the dashboard's operator, completed by
      // toolgate's callback, and the browser back on the server page.
      const records = JSON.parse((await cli(['activity', 'list', '--limit', '50', '-o', 'json'])).stdout)
      const started = records.find((r) => r.type === 'server.login_started')
      if (!started || started.actor.startsWith('cli:')) throw new Error('no login was started from the dashboard')
      if (!records.some((r) => r.type === 'server.login_completed')) throw new Error('the callback never completed the login')
      if (new URL(page.url()).pathname !== '/servers/conf') throw new Error(`the browser ended on ${page.url()}, not back on the server page`)
    } finally {
      await browser.close()
    }
  }

}

main().then(
  () => { stop(); process.exit(0) },
  (e) => { log(`FAILED: ${e.message}`); stop(); process.exit(1) },
)
function stop() {
  try { process.kill(-server.pid, 'SIGTERM') } catch { /* not started, or gone */ }
}
