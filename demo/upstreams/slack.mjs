// Demo upstream: "slack" (stdio MCP server on the official SDK), a client of the demo's Slack
// workspace API, which `toolgate serve` runs in demo mode on a loopback port:
//   node demo/upstreams/slack.mjs --workspace http://127.0.0.1:<port>/demo/slack
// Its tools are the ones the demo state lists for slack, served as defined there (same pins).
// While the workspace reports trouble, listing and calling tools fail with its words.
import { parseArgs } from 'node:util'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { demoTools } from './demo-tools.mjs'

const WORKSPACE_TIMEOUT_MS = 5_000

const { values } = parseArgs({ options: { workspace: { type: 'string' } } })
const given = z.url({ protocol: /^https?$/ }).safeParse(values.workspace)
if (!given.success) {
  console.error('slack: --workspace <http(s) URL of the Slack workspace API> is required')
  process.exit(2)
}
const workspace = given.data

const tools = demoTools('slack')

const workspaceAnswer = z.looseObject({ error: z.string().optional(), text: z.string().optional() })

/** One request to the workspace; its trouble (or its silence) becomes this server's error. */
async function ask(path, body) {
  let res
  try {
    res = await fetch(`${workspace}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(WORKSPACE_TIMEOUT_MS),
    })
  } catch (e) {
    throw new Error(`slack cannot reach the Slack workspace at ${workspace}: ${e.cause?.code ?? e.cause?.message ?? e.message}`)
  }
  const answer = workspaceAnswer.parse(await res.json().catch(() => ({})))
  if (!res.ok) throw new Error(answer.error ?? `the Slack workspace answered ${res.status}`)
  return answer
}

const server = new Server({ name: 'slack', version: '1.0.0' }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => {
  await ask('/session')
  return { tools }
})
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  if (!tools.some((t) => t.name === req.params.name)) return { isError: true, content: [{ type: 'text', text: `slack has no tool "${req.params.name}"` }] }
  const { text } = await ask('/messages', req.params.arguments ?? {})
  return { content: [{ type: 'text', text: text ?? 'posted' }] }
})
await server.connect(new StdioServerTransport())
