import { handleMcp } from '../../../../lib/mcp/http'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

interface Ctx { params: Promise<{ profile: string }> }

/** /mcp/p/<profile> — the MCP endpoint with the session pinned to a profile (narrows scope). */
export async function POST(req: Request, { params }: Ctx): Promise<Response> {
  return handleMcp(req, (await params).profile)
}

export async function GET(req: Request, { params }: Ctx): Promise<Response> {
  return handleMcp(req, (await params).profile)
}

export async function DELETE(req: Request, { params }: Ctx): Promise<Response> {
  return handleMcp(req, (await params).profile)
}
