import 'server-only'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js'

export type DemoCall = (tool: string, args: Record<string, unknown>) => CallToolResult

/**
 * A stateless Streamable HTTP MCP server on the official SDK, serving exactly the given tool
 * definitions (so their pins are the ones the demo state approved) and answering calls with `call`.
 */
export function mcpHandler(name: string, tools: Tool[], call: DemoCall) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const server = new Server({ name, version: '1.0.0' }, { capabilities: { tools: {} } })
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }))
    server.setRequestHandler(CallToolRequestSchema, (r) => tools.some((t) => t.name === r.params.name)
      ? call(r.params.name, r.params.arguments ?? {})
      : { isError: true, content: [{ type: 'text', text: `${name} has no tool "${r.params.name}"` }] })
    // each request is a fresh server and transport (stateless), closed with the response
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    await server.connect(transport)
    res.on('close', () => {
      void transport.close()
      void server.close()
    })
    await transport.handleRequest(req, res)
  }
}
