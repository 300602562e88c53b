import { searchHits } from '@/lib/dashboard/api'
import { signedInQueryRoute } from '@/lib/dashboard/query-route'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** GET /api/dashboard/search?q=<text> — tool ids, servers, tokens and request ids for the header's search. Operator session only. */
export const GET = signedInQueryRoute('Type fewer characters.', (q) => ({ hits: searchHits(q) }))
