import { suggestToolIds } from '@/db/queries/tools'
import { signedInQueryRoute } from '@/lib/dashboard/query-route'
import { getDb } from '@/db/client'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** GET /api/dashboard/tool-ids?q=<prefix> — autocomplete over known `server:tool` ids. Operator session only. */
export const GET = signedInQueryRoute('Type a shorter prefix.', (q) => ({ ids: suggestToolIds(getDb(), q, 20) }))
