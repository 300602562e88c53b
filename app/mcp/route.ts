import { handleMcp } from '../../lib/mcp/http'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** /mcp — the MCP endpoint (stateless Streamable HTTP, 2026-07-28 and 2025-11-25). */
export async function POST(req: Request): Promise<Response> {
  return handleMcp(req, undefined)
}

export async function GET(req: Request): Promise<Response> {
  return handleMcp(req, undefined)
}

export async function DELETE(req: Request): Promise<Response> {
  return handleMcp(req, undefined)
}
