import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addServer } from '@/lib/admin/upstreams'
import { LOOPBACK_ONLY, NODE22, slots, SUITE } from '@/tests/helpers/conformance-suite'
import { startGateway, type Gateway } from '@/tests/helpers/gateway'
import { freePort } from '@/tests/helpers/server'
import { connectionState, waitFor } from '@/tests/upstream/harness'
import { startNameShim, type NameShim } from './name-shim'

// The MCP conformance suite's server scenarios, with toolgate as the server under test: the
// suite's client speaks to toolgate's /mcp (through a shim that only maps `test_x` to the
// `conformance:test_x` toolgate serves, tests/conformance/name-shim.ts), toolgate to the fixture
// (tests/fixtures/conformance-server.mjs) over stdio. Each scenario also runs straight against the
// fixture over Streamable HTTP, so a failure through toolgate is toolgate's, not the fixture's.

const FIXTURE = path.resolve(import.meta.dirname, '..', 'fixtures', 'conformance-server.mjs')
const SERVER = 'conformance'

/** Every server scenario of the suite (0.1.16): `conformance list`. */
const scenarios = [
  'server-initialize', 'logging-set-level', 'ping', 'completion-complete', 'tools-list',
  'tools-call-simple-text', 'tools-call-image', 'tools-call-audio', 'tools-call-embedded-resource',
  'tools-call-mixed-content', 'tools-call-with-logging', 'tools-call-error', 'tools-call-with-progress',
  'tools-call-sampling', 'tools-call-elicitation', 'json-schema-2020-12', 'elicitation-sep1034-defaults',
  'server-sse-polling', 'server-sse-multiple-streams', 'elicitation-sep1330-enums',
  'resources-list', 'resources-read-text', 'resources-read-binary', 'resources-templates-read',
  'resources-subscribe', 'resources-unsubscribe', 'prompts-list', 'prompts-get-simple',
  'prompts-get-with-args', 'prompts-get-embedded-resource', 'prompts-get-with-image', 'dns-rebinding-protection',
]

/** What a run came to: how many checks passed, and which failed and which warned. */
interface Outcome { passed: number; failed: string[]; warnings: string[] }

/**
 * Scenarios whose outcome through toolgate differs from the fixture's own: what it is, and why.
 * Each is a difference of toolgate's on record, asserted as it stands so a change shows up here.
 */
const throughToolgate: Record<string, Outcome & { why: string }> = {
  'server-sse-polling': {
    passed: 0, failed: [], warnings: ['server-sse-polling-session'],
    why: 'the stateless endpoint gives no mcp-session-id and answers the tools/call as JSON, so the suite has no SSE stream whose priming event, retry field or resumption it could check (it says so as INFO)',
  },
  'server-sse-multiple-streams': {
    passed: 0, failed: [], warnings: ['server-sse-multiple-streams-session'],
    why: 'the stateless endpoint gives no mcp-session-id, and without one the suite stops before opening its concurrent streams',
  },
}

/** Two cores: the suite, toolgate and the fixture all want one. */
const slot = slots(2)

interface Run { code: number | null; out: string; passed: number; failed: number; failedChecks: string[]; warningChecks: string[] }
const outcome = (r: Run): Outcome => ({ passed: r.passed, failed: r.failedChecks, warnings: r.warningChecks })

function runScenario(scenario: string, url: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(NODE22, ['-r', LOOPBACK_ONLY, SUITE, 'server', '--url', url, '--scenario', scenario], {
      env: { ...process.env, NODE_NO_WARNINGS: '1', NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    // a hang guard only: a scenario takes seconds
    const hang = setTimeout(() => child.kill(), 120_000)
    child.on('close', (code) => {
      clearTimeout(hang)
      // eslint-disable-next-line no-control-regex
      const plain = out.replace(/\x1b\[[0-9;]*m/g, '')
      const m = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(plain)
      const checks = (status: string) => [...plain.matchAll(new RegExp(`\\[([\\w$-]+)\\s*\\] ${status}`, 'g'))].map((f) => f[1])
      resolve({ code, out: plain, passed: Number(m?.[1] ?? 0), failed: Number(m?.[3] ?? -1), failedChecks: checks('FAILURE'), warningChecks: checks('WARNING') })
    })
  })
}

let gateway: Gateway
let shim: NameShim
let direct: ChildProcess
let directUrl: string
beforeAll(async () => {
  for (const needed of [NODE22, SUITE]) {
    if (!existsSync(needed)) throw new Error(`${needed} is missing: install the conformance suite with \`npm ci --prefix tests/oauth/conformance\` (npm test does it)`)
  }
  const port = await freePort()
  directUrl = `http://127.0.0.1:${port}/mcp`
  direct = spawn(process.execPath, [FIXTURE], { env: { ...process.env, PORT: String(port) }, stdio: 'ignore' })
  gateway = await startGateway('tg_op_server_conformance_0000000')
  await addServer(gateway.db, { name: SERVER, transport: { command: process.execPath, args: [FIXTURE] }, trusted: true }, { actor: 'test' })
  await waitFor(`${SERVER} ready`, () => connectionState(gateway.db, SERVER)?.state === 'ready')
  await waitFor('the fixture serving HTTP', () => fetch(directUrl, { method: 'POST', signal: AbortSignal.timeout(500) }).then(() => true, () => false))
  shim = await startNameShim(`${gateway.server.url}/mcp`, SERVER, gateway.agent)
})
afterAll(async () => {
  await shim?.close()
  await gateway?.server.stop()
  direct?.kill()
})

/**
 * Scenarios whose server asks its caller during the call (an elicitation, a sampling). The suite's
 * client is one agent token, so all its scenarios share one upstream session, and over stdio a
 * server's question carries nothing that names its call: toolgate puts it to the call only when
 * it is the one in flight on that session (docs/upstreams.md, "Which call?"). These run alone,
 * after the others, as one agent's session would.
 */
const asking = new Set(['tools-call-sampling', 'tools-call-elicitation', 'elicitation-sep1034-defaults', 'elicitation-sep1330-enums'])

const summary = (r: Run) => `${r.failedChecks.length ? `failed: ${r.failedChecks.join(', ')}\n` : ''}${r.out.slice(-4000)}`
const HANG = 10 * 60_000
/** One scenario straight against the fixture, then through toolgate, compared. */
async function compare(scenario: string): Promise<void> {
  const [straight, through] = await slot(async () => [await runScenario(scenario, directUrl), await runScenario(scenario, shim.url)])
  // the fixture meets the scenario: where toolgate's outcome differs, the difference is toolgate's
  expect(straight.failed, `directly against the fixture\n${summary(straight)}`).toBe(0)
  expect(straight.code).toBe(0)
  const known = throughToolgate[scenario]
  const expected: Outcome = known ? { passed: known.passed, failed: known.failed, warnings: known.warnings } : outcome(straight)
  expect(outcome(through), `through toolgate${known ? ` (known: ${known.why})` : ''}\n${summary(through)}`).toEqual(expected)
  expect(through.code).toBe(expected.failed.length > 0 ? 1 : 0)
}

describe('MCP conformance suite, server scenarios, through toolgate', () => {
  for (const scenario of scenarios.filter((s) => !asking.has(s))) it.concurrent(scenario, () => compare(scenario), HANG)
})

describe('MCP conformance suite, server scenarios that ask the caller, one at a time', () => {
  for (const scenario of scenarios.filter((s) => asking.has(s))) it(scenario, () => compare(scenario), HANG)
})

describe('the name shim', () => {
  it('maps tool and prompt names both ways and passes everything else as it came', async () => {
    const seen: { body: string; headers: http.IncomingHttpHeaders }[] = []
    // toolgate's side: answers with a listing as JSON, or as SSE events around a request to the caller
    const upstream = http.createServer((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        seen.push({ body, headers: req.headers })
        if (req.headers.accept === 'application/json') {
          return res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' }).end('{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"conformance:test_a","description":"conformance:test_a"}]}}')
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write('id: 1\nretry: 500\ndata: \n\n')
        res.write('event: message\ndata: {"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{"message":"conformance:test_a"}}\n\n')
        res.end('data: {"jsonrpc":"2.0","id":2,"result":{"prompts":[{"name":"conformance:test_p"},{"name":"other:test_q"}]}}\n\n')
      })
    })
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
    const mapped = await startNameShim(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`, SERVER, 'tg_at_token')
    try {
      const post = (accept: string, body: string) => fetch(mapped.url, { method: 'POST', headers: { accept, 'content-type': 'application/json', 'mcp-session-id': 's1', origin: 'http://evil.example.com' }, body })
      const listed = await post('application/json', '[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_a","arguments":{"name":"test_a"}}},{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_p"},"argument":{"name":"test_p","value":""}}}]')
      expect(listed.headers.get('mcp-session-id')).toBe('s1')
      expect(await listed.json()).toEqual({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'test_a', description: 'conformance:test_a' }] } })
      expect(JSON.parse(seen[0].body)).toEqual([
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'conformance:test_a', arguments: { name: 'test_a' } } },
        { jsonrpc: '2.0', id: 3, method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'conformance:test_p' }, argument: { name: 'test_p', value: '' } } },
      ])
      expect(seen[0].headers).toMatchObject({ authorization: 'Bearer tg_at_token', 'mcp-session-id': 's1', origin: 'http://evil.example.com' })

      const untouched = ' {"jsonrpc":"2.0", "id":2, "method":"prompts/list"}'
      const streamed = await post('text/event-stream', untouched)
      expect(seen[1].body).toBe(untouched)
      expect(await streamed.text()).toBe([
        'id: 1\nretry: 500\ndata: \n\n',
        'event: message\ndata: {"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{"message":"conformance:test_a"}}\n\n',
        'data: {"jsonrpc":"2.0","id":2,"result":{"prompts":[{"name":"test_p"},{"name":"other:test_q"}]}}\n\n',
      ].join(''))
    } finally {
      await mapped.close()
      upstream.close()
    }
  })
})
