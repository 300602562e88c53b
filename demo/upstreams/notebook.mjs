// Demo upstream: a small read-only notebook (stdio MCP server on the official SDK).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const notes = new Map([
  ['welcome', 'toolgate checks that every tool a job needs is ready before an agent spends a token.'],
  ['runbook', 'If a preflight is blocked, follow the remediation on each row, then run it again.'],
])

const server = new McpServer({ name: 'notebook', version: '1.0.0' })
server.registerTool('list_notes', {
  description: 'List the titles of all notes.',
  inputSchema: {},
  annotations: { readOnlyHint: true, openWorldHint: false },
}, async () => ({ content: [{ type: 'text', text: [...notes.keys()].join('\n') }] }))
server.registerTool('read_note', {
  description: 'Read one note by its title.',
  inputSchema: { title: z.string().describe('the note title') },
  annotations: { readOnlyHint: true, openWorldHint: false },
}, async ({ title }) => notes.has(title)
  ? { content: [{ type: 'text', text: notes.get(title) }] }
  : { isError: true, content: [{ type: 'text', text: `no note titled "${title}"` }] })

await server.connect(new StdioServerTransport())
console.error('notebook: ready')
