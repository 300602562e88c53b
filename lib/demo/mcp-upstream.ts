import 'server-only'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Server, WebStandardStreamableHTTPServerTransport, type CallToolResult, type Tool } from '@modelcontextprotocol/server'
import { readBody } from '@/lib/http/json'

export type DemoCall = (tool: string, args: Record<string, unknown>) => CallToolResult

/**
 * A stateless Streamable HTTP MCP server on the official SDK, serving exactly the given tool
 * definitions (so their pins are the ones the demo state approved) and answering calls with `call`.
 */
export function mcpHandler(name: string, tools: Tool[], call: DemoCall) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const server = new Server({ name, version: '1.0.0' }, { capabilities: { tools: {} } })
    server.setRequestHandler('tools/list', () => ({ tools }))
    server.setRequestHandler('tools/call', (r) => tools.some((t) => t.name === r.params.name)
      ? call(r.params.name, r.params.arguments ?? {})
      : { isError: true, content: [{ type: 'text', text: `${name} has no tool "${r.params.name}"` }] })
    // each request is a fresh server and transport (stateless), closed once answered
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    await server.connect(transport)
    try {
      const headers = new Headers()
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v)
      const body = req.method === 'POST' ? new Uint8Array(await readBody(req)) : undefined
      const answer = await transport.handleRequest(new Request(`http://demo${req.url ?? '/'}`, { method: req.method, headers, body }))
      res.writeHead(answer.status, Object.fromEntries(answer.headers))
      res.end(Buffer.from(await answer.arrayBuffer()))
    } finally {
      await transport.close()
      await server.close()
    }
  }
}
