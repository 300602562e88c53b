import { z } from 'zod'
import { globalSearch } from '@/lib/dashboard/search'
import { unauthorizedUnlessSignedIn } from '@/lib/dashboard/operator'
import { getDb } from '@/db/client'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

const query = z.string().max(256)

/** GET /api/dashboard/search?q=<text> — tool ids, servers, tokens and request ids for the header's search. Operator session only. */
export async function GET(req: Request): Promise<Response> {
  const denied = await unauthorizedUnlessSignedIn()
  if (denied) return denied
  const q = query.safeParse(new URL(req.url).searchParams.get('q') ?? '')
  if (!q.success) return Response.json({ error: 'q is at most 256 characters', fix: 'Type fewer characters.' }, { status: 400 })
  return Response.json({ hits: globalSearch(getDb(), q.data) }, { headers: { 'cache-control': 'no-store' } })
}
