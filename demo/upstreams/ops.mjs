// Demo upstream: an "ops" server with one harmless and one destructive tool (stdio, official SDK).
// The destructive tool only pretends: it deletes nothing.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const server = new McpServer({ name: 'ops', version: '1.0.0' })
server.registerTool('service_status', {
  description: 'Report the status of a service.',
  inputSchema: { service: z.string() },
  annotations: { readOnlyHint: true, openWorldHint: false },
}, async ({ service }) => ({ content: [{ type: 'text', text: `${service}: healthy` }] }))
server.registerTool('wipe_cache', {
  description: 'Delete every entry of a cache (destructive).',
  inputSchema: { cache: z.string() },
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
}, async ({ cache }) => ({ content: [{ type: 'text', text: `(demo) would wipe cache ${cache}` }] }))

await server.connect(new StdioServerTransport())
console.error('ops: ready')
