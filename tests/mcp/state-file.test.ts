import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '@/tests/helpers/cli'
import { AGENT, EXTENSION_ID, modernRpc, OPERATOR_KEY, startHarness, type Harness } from './harness'

// A state file may say a server is ready; without a command or URL nothing stands behind it, so
// a call is refused. Every surface says the same before the call: never `ready`.
const obj = { type: 'object' }
let h: Harness
beforeAll(async () => {
  h = await startHarness({
    servers: [{ name: 'example', connection: { state: 'ready' }, tools: [{ name: 'lookup', input_schema: obj, annotations: { readOnlyHint: true } }] }],
  })
})
afterAll(async () => {
  await h?.server.stop()
})

const expected = {
  reason: 'server_unhealthy',
  action: 'configure',
  detail: 'no command or URL: a state-file example, with nothing behind it to call',
  remediation: 'Give it a transport: toolgate upstream remove example, then toolgate upstream add example --command <program> (or --url <https://…/mcp>)',
}

describe('a state-file server that its file calls ready', () => {
  it('REST, the CLI, describe_tool check, Shape B and tools/call all give the same server_unhealthy, naming what is true', async () => {
    const rest = await fetch(`${h.server.url}/api/v1/preflight`, {
      method: 'POST', headers: { 'x-api-key': OPERATOR_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ tools: [{ id: 'example:lookup' }] }),
    })
    expect((await rest.json()).data.tools[0]).toMatchObject({ status: 'unavailable', ...expected })

    const cli = await runCli(['tools', 'preflight', 'example:lookup', '--db', h.file, '-o', 'json'])
    expect(cli.code).toBe(10)
    expect(JSON.parse(cli.stdout).tools[0]).toMatchObject(expected)

    const auth = { headers: { authorization: `Bearer ${AGENT}` } }
    const check = await modernRpc(h.mcp, 'tools/call', { name: 'describe_tool', arguments: { tool_ids: ['example:lookup'], check: true } }, auth)
    expect(check.body.result!.structuredContent.results[0]).toMatchObject(expected)

    const resolve = await modernRpc(h.mcp, 'tools/resolve', { name: 'example:lookup', arguments: {} }, auth)
    expect(resolve.body.result!.tool._meta[EXTENSION_ID]).toMatchObject({ status: 'unavailable', ...expected })

    const call = await modernRpc(h.mcp, 'tools/call', { name: 'example:lookup', arguments: {} }, auth)
    expect(call.body.result).toMatchObject({ isError: true, structuredContent: { status: 'unavailable', ...expected } })
  })

  it('upstream logs says it never runs, instead of "no log lines yet"', async () => {
    const r = await runCli(['upstream', 'logs', 'example', '--db', h.file])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('(no log lines: example has no command or URL, so toolgate never runs it; it is a state-file example, its state comes from the state file)\n')
  })
})
