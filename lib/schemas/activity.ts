import { z } from 'zod'
import { activityTypes, surfaces } from '@/lib/core/activity'
import { verdicts } from '@/lib/preflight/taxonomy'
import { tokenNameSchema } from '@/lib/schemas/names'
import { requestIdSchema } from '@/lib/schemas/request-id'

const blankToUndefined = (v: unknown) => (v === '' ? undefined : v)
const optional = <T extends z.ZodType>(s: T) => z.preprocess(blankToUndefined, s.optional())
// datetime-local ("2026-08-19T09:00") or any ISO instant; kept as epoch ms
const instant = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'expected a date and time').transform((s) => Date.parse(s))

/** The activity filters, exactly as they appear in the URL (`/activity?request_id=…&verdict=blocked`). */
export const activityFilterSchema = z.strictObject({
  request_id: optional(requestIdSchema),
  type: optional(z.enum(activityTypes)),
  surface: optional(z.enum(surfaces)),
  verdict: optional(z.enum(verdicts)),
  server: optional(z.string().max(200)),
  token: optional(tokenNameSchema),
  // a person: their username, or break-glass
  person: optional(z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'a person is a username (or break-glass)')),
  // free text (db/queries/activity.ts matchesText): bounded, as each row is searched for it
  q: optional(z.string().trim().max(200, 'search text is at most 200 characters')),
  from: optional(instant),
  to: optional(instant),
  before: optional(z.coerce.number().int().positive()),
})
export type ActivityFilter = z.output<typeof activityFilterSchema>

/** The chart's ranges when no From/To filter is set (lib/dashboard/activity.ts chartSpans: their lengths). */
const chartSpanNames = ['1h', '24h', '7d', '30d'] as const
export type ChartSpan = (typeof chartSpanNames)[number]
export const chartSpanSchema = z.enum(chartSpanNames)

/** Where a live activity stream starts (GET /api/dashboard/activity/stream?after=…). */
export const streamPositionSchema = z.object({ after: z.string().regex(/^\d{1,15}$/, 'expected the id of the newest record the page has (a whole number)').transform(Number) })
