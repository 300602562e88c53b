import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOOPBACK_ONLY, NODE22, slots, SUITE } from '@/tests/helpers/conformance-suite'
import { freshDb, load } from '@/tests/helpers/db'
import { startServer, type RunningServer } from '@/tests/helpers/server'

// The MCP conformance suite's client scenarios, with toolgate as the client under test through
// its real login path (tests/oauth/conformance-driver.mjs): `upstream add`, `upstream login`, the
// browser hop, the callback, and a tools/call through /mcp. One toolgate serves every scenario,
// as one serves an operator's many upstreams: each scenario adds its mock under its own name.

const DRIVER = path.join(import.meta.dirname, 'conformance-driver.mjs')

const scenarios = [
  'initialize', 'tools_call', 'sse-retry',
  'auth/metadata-default', 'auth/metadata-var1', 'auth/metadata-var2', 'auth/metadata-var3',
  'auth/basic-cimd', 'auth/scope-from-www-authenticate', 'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined', 'auth/scope-step-up', 'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic', 'auth/token-endpoint-auth-post', 'auth/token-endpoint-auth-none',
  'auth/pre-registration', 'auth/2025-03-26-oauth-metadata-backcompat', 'auth/2025-03-26-oauth-endpoint-fallback',
  'auth/resource-mismatch', 'auth/offline-access-scope', 'auth/offline-access-not-supported',
  'auth/client-credentials-basic', 'auth/client-credentials-jwt',
]

/**
 * At most this many scenarios at once: each is the suite with its mocks, the driver and the CLI
 * calls it makes (the one toolgate is shared). More only crowd two cores.
 */
const slot = slots(4)

const KEY = 'tg_op_conformance_key_0000000000'
const TOKEN = 'tg_at_conformance_agent_0000'
let toolgate: RunningServer
let dbFile: string
beforeAll(async () => {
  // without them every scenario would wait on a process that never started
  for (const needed of [NODE22, SUITE]) {
    if (!existsSync(needed)) throw new Error(`${needed} is missing: install the conformance suite with \`npm ci --prefix tests/oauth/conformance\` (npm test does it)`)
  }
  const fresh = freshDb()
  dbFile = fresh.file
  await load(fresh.db, { servers: [], agent_tokens: [{ name: 'conformance', token: TOKEN, allowed_servers: ['*'] }] })
  fresh.db.$client.close()
  toolgate = await startServer({
    TOOLGATE_DB: dbFile, TOOLGATE_API_KEY: KEY, TOOLGATE_RUNTIME: 'on',
    TOOLGATE_BACKOFF_BASE_MS: '200', TOOLGATE_BACKOFF_MAX_MS: '800', TOOLGATE_CONNECT_TIMEOUT_MS: '5000',
  })
})
afterAll(async () => {
  await toolgate?.stop()
})

/** Scenarios also run with the login started from the dashboard's button in real Chromium. */
const dashboardScenarios = ['auth/metadata-var1', 'auth/2025-03-26-oauth-endpoint-fallback', 'auth/scope-step-up']

/** A server name of the scenario's own: letters, digits and "-" (the suite names scenarios with "/"). */
const upstreamName = (scenario: string, login: string) => `${scenario.replace(/[^A-Za-z0-9]+/g, '-')}${login === 'dashboard' ? '-dashboard' : ''}`

function runScenario(scenario: string, login: 'cli' | 'dashboard' = 'cli'): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    // the suite's --timeout bounds the driver: a hang guard, with room for a busy machine
    const child = spawn(NODE22, ['-r', LOOPBACK_ONLY, SUITE, 'client', '--command', `${process.execPath} ${DRIVER}`, '--scenario', scenario, '--timeout', '300000'], {
      env: {
        ...process.env, NODE_NO_WARNINGS: '1',
        // the mocks name themselves "localhost" but listen on 127.0.0.1 only: resolve it there first
        NODE_OPTIONS: '--dns-result-order=ipv4first',
        TOOLGATE_CONFORMANCE_LOGIN: login, TOOLGATE_CONFORMANCE_URL: toolgate.url, TOOLGATE_CONFORMANCE_TOKEN: TOKEN,
        TOOLGATE_CONFORMANCE_NAME: upstreamName(scenario, login), TOOLGATE_DB: dbFile, TOOLGATE_API_KEY: KEY,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    child.on('close', (code) => resolve({ code, out }))
  })
}

describe('MCP conformance suite, client scenarios, through toolgate', () => {
  it('has its tools installed (scripts/test.mjs installs them from tests/oauth/conformance)', () => {
    expect(existsSync(NODE22), `missing ${NODE22}: run npm ci --prefix tests/oauth/conformance`).toBe(true)
    expect(existsSync(SUITE), `missing ${SUITE}: run npm ci --prefix tests/oauth/conformance`).toBe(true)
  })

  const expectPassed = ({ code, out }: { code: number | null; out: string }) => {
    const summary = out.split('\n').filter((l) => /^(Passed:|Failed Checks|  - |❌|✅|\[driver .*FAILED)/.test(l)).join('\n')
    expect(out, summary || out.slice(-3000)).toContain('OVERALL: PASSED')
    expect(code).toBe(0)
  }
  // a scenario waits for its slot inside the test: the timeout only guards the file against a hang
  const HANG = 30 * 60_000
  for (const scenario of scenarios) {
    it.concurrent(scenario, async () => expectPassed(await slot(() => runScenario(scenario))), HANG)
  }
  for (const scenario of dashboardScenarios) {
    it.concurrent(`${scenario}, logged in from the dashboard in Chromium`, async () => expectPassed(await slot(() => runScenario(scenario, 'dashboard'))), HANG)
  }
})
