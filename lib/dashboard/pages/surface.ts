import 'server-only'
import { getDb } from '@/db/client'
import { heavy } from '../heavy'

/** `/surface`: the report, scored in the worker (every scope's pairs) and streamed in when it lands. */
export const loadSurface = (scope: string | undefined) => ({ report: heavy(getDb(), { kind: 'surface', ...(scope ? { scope } : {}) }) })
