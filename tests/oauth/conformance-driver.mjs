// The "client under test" for the MCP conformance suite's client scenarios: toolgate itself,
// used the way an operator does. The suite starts a mock MCP server (and authorization server)
// and runs this script with the mock's URL as the last argument. A running toolgate — one for all
// the scenarios, started by tests/oauth/conformance.test.ts, which hands over its URL, database
// and keys in the environment — is the operator's; the script:
//   1. adds the mock as an HTTP upstream under a name of this scenario's own
//      (`toolgate upstream add`, with client credentials when the scenario hands some over in
//      MCP_CONFORMANCE_CONTEXT);
//   2. when the upstream needs a login, runs `toolgate upstream login`, then plays the browser:
//      opens the authorization URL and follows its redirects back to toolgate's callback (or,
//      with TOOLGATE_CONFORMANCE_LOGIN=dashboard, presses the dashboard's "Log in" in Chromium);
//   3. once the upstream is ready, calls its tools through toolgate's /mcp with the MCP SDK;
//   4. removes the upstream (its mock is gone once the scenario ends);
// and exits 0 only when all of that worked. Everything it does is printed to stderr.
import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

const root = path.resolve(import.meta.dirname, '..', '..')
const bin = path.join(root, 'bin', 'toolgate.mjs')
const serverUrl = process.argv.at(-1)
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '(none)'
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}')
// the running toolgate: its address, the operator key (TOOLGATE_API_KEY), an agent token, and
// TOOLGATE_DB, which the CLI reads as the server does
const base = process.env.TOOLGATE_CONFORMANCE_URL
const KEY = process.env.TOOLGATE_API_KEY
const TOKEN = process.env.TOOLGATE_CONFORMANCE_TOKEN
const name = process.env.TOOLGATE_CONFORMANCE_NAME
const log = (...a) => console.error(`[driver ${scenario}]`, ...a)
// TOOLGATE_CONFORMANCE_LOGIN=dashboard: log in by pressing the dashboard's button in Chromium
const viaDashboard = process.env.TOOLGATE_CONFORMANCE_LOGIN === 'dashboard'

const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-conformance-'))
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' }
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
// the deadlines bound a hang; a busy machine may need much of them (the suite's --timeout bounds the whole)
async function until(what, fn, ms = 60_000) {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(200)
  }
}

async function main() {
  if (!base || !KEY || !TOKEN || !name || !process.env.TOOLGATE_DB) throw new Error('run by tests/oauth/conformance.test.ts, which sets TOOLGATE_CONFORMANCE_URL, TOOLGATE_API_KEY, TOOLGATE_CONFORMANCE_TOKEN, TOOLGATE_CONFORMANCE_NAME and TOOLGATE_DB')
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
  if ((await cli(['upstream', 'add', name, '--url', serverUrl, '--trusted', ...credentials, ...grant, ...cimd])).status !== 0) throw new Error('upstream add failed')

  const state = async () => JSON.parse((await cli(['upstream', 'list', '-o', 'json'])).stdout).find((s) => s.name === name)
  const settled = await until('the upstream to connect or ask for a login', async () => {
    const s = await state()
    return ['ready', 'pending_auth', 'error'].includes(s?.connection) ? s : undefined
  })
  if (settled.connection !== 'ready') await login(settled)

  const client = new Client({ name: 'conformance-through-toolgate', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }))
  const tools = (await client.listTools()).tools.filter((t) => t.name.startsWith(`${name}:`))
  log(`tools through toolgate: ${tools.map((t) => t.name).join(', ')}`)
  for (const t of tools) {
    const args = t.name === `${name}:add_numbers` ? { a: 2, b: 3 } : {}
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
    const out = await cli(['upstream', 'login', name, '--url', base])
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
    await until('the upstream ready after login', async () => (await state())?.connection === 'ready')
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
      await page.getByLabel('Break-glass key', { exact: true }).fill(KEY)
      await page.getByRole('button', { name: 'Use the break-glass key' }).click()
      await page.waitForURL((u) => u.pathname === '/')
      await page.goto(`/servers/${name}`)
      await page.getByRole('button', { name: /^Log in/ }).first().click()
      await until('the upstream ready after the dashboard login', async () => (await state())?.connection === 'ready')
      await page.waitForLoadState()
      log(`browser showed: ${visited.join(' → ')}`)
      // The suite's authorization server approves at once (its /authorize answers with a redirect,
      // which the suite's own checks see), so the browser shows no page of it; what proves the
      // button did the login is the record: started by the dashboard's operator, completed by
      // toolgate's callback, and the browser back on the server page.
      // other scenarios log in to the same toolgate meanwhile: this server's records only
      const records = JSON.parse((await cli(['activity', 'list', '--limit', '1000', '-o', 'json'])).stdout).filter((r) => r.server === name)
      const started = records.find((r) => r.type === 'server.login_started')
      if (!started || started.actor.startsWith('cli:')) throw new Error('no login was started from the dashboard')
      if (!records.some((r) => r.type === 'server.login_completed')) throw new Error('the callback never completed the login')
      if (new URL(page.url()).pathname !== `/servers/${name}`) throw new Error(`the browser ended on ${page.url()}, not back on the server page`)
    } finally {
      await browser.close()
    }
  }

}

// the upstream goes either way: its mock ends with the scenario, and the runtime would dial it on
main().then(
  async () => { await remove(); process.exit(0) },
  async (e) => { log(`FAILED: ${e.message}`); await remove(); process.exit(1) },
)
async function remove() {
  if (name && base) await cli(['upstream', 'remove', name]).catch(() => undefined)
}
