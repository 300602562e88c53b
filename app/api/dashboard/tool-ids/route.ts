import { z } from 'zod'
import { suggestToolIds } from '@/db/queries/tools'
import { unauthorizedUnlessSignedIn } from '@/lib/dashboard/operator'
import { getDb } from '@/db/client'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

const query = z.string().max(256)

/** GET /api/dashboard/tool-ids?q=<prefix> — autocomplete over known `server:tool` ids. Operator session only. */
export async function GET(req: Request): Promise<Response> {
  const denied = await unauthorizedUnlessSignedIn()
  if (denied) return denied
  const q = query.safeParse(new URL(req.url).searchParams.get('q') ?? '')
  if (!q.success) return Response.json({ error: 'q is at most 256 characters', fix: 'Type a shorter prefix.' }, { status: 400 })
  return Response.json({ ids: suggestToolIds(getDb(), q.data, 20) }, { headers: { 'cache-control': 'no-store' } })
}
