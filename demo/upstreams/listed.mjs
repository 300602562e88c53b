// Demo upstream for a server the demo state lists and nothing more (github, legacy-ci, billing):
// a stdio MCP server on the official SDK offering exactly the tools the state lists for the server
// named on its command line (same definitions, same pins), each answering that it ran, in the demo.
// Enough for the demo's fixes (enable, release, a profile that takes it in) to end in a real ready.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { demoTools } from './demo-tools.mjs'

const name = process.argv[2]
const tools = demoTools(name)
if (!name || tools.length === 0) {
  console.error(`usage: listed.mjs <server> (a server the demo state lists tools for; "${name ?? ''}" is not)`)
  process.exit(2)
}
const server = new Server({ name, version: '1.0.0' }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }))
server.setRequestHandler(CallToolRequestSchema, (req) => ({
  ...(tools.some((t) => t.name === req.params.name) ? {} : { isError: true }),
  content: [{ type: 'text', text: tools.some((t) => t.name === req.params.name)
    ? `(demo) ${name}:${req.params.name} ran with ${JSON.stringify(req.params.arguments ?? {})}; nothing left this machine`
    : `${name} has no tool "${req.params.name}"` }],
}))
await server.connect(new StdioServerTransport())
console.error(`${name}: ready`)
