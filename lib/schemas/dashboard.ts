import { z } from 'zod'
import { policySchema } from '@/lib/schemas/preflight'
import { requestIdSchema } from '@/lib/schemas/request-id'
import { profileNameSchema, serverNameSchema, tokenNameSchema } from '@/lib/schemas/admin'

/**
 * The dashboard's boundary schemas: what its forms and URLs may carry. Actions parse their
 * input with these; pages parse their search params with them too (filters live in the URL).
 */
export const MAX_DASHBOARD_IDS = 100

export const preflightFormSchema = z.strictObject({
  ids: z.array(z.string().trim().min(1, 'tool ids must not be blank').max(256, 'a tool id is at most 256 characters'))
    .min(1, 'enter at least one tool id (<server>:<tool>)')
    .max(MAX_DASHBOARD_IDS, `at most ${MAX_DASHBOARD_IDS} tool ids per check`),
  // evaluate at the operator tier (null) or as this agent token
  token: tokenNameSchema.nullable(),
  profile: profileNameSchema.nullable(),
  policy: policySchema,
})
export type PreflightForm = z.infer<typeof preflightFormSchema>

const toolIdSchema = z.string().trim().min(3, 'a tool id is <server>:<tool>').max(256)

/** One remediation a row's button can run (login is a browser redirect flow: lib/actions/upstream.ts). */
const pin = z.string().max(200)

/**
 * One remediation a row's button can run (login is a browser redirect flow: lib/actions/upstream.ts).
 * What the operator was shown travels with it: the pin approved, the pins a release approves,
 * and an explicit yes where the change lifts a deliberate block.
 */
export const fixSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('approve_tool'), id: toolIdSchema, hash: pin }),
  z.strictObject({ kind: z.literal('enable_tool'), id: toolIdSchema, confirm: z.boolean().optional() }),
  z.strictObject({ kind: z.literal('allow_tool'), id: toolIdSchema, confirm: z.boolean().optional() }),
  z.strictObject({ kind: z.literal('enable_server'), server: serverNameSchema }),
  z.strictObject({ kind: z.literal('release_server'), server: serverNameSchema, shown: z.record(z.string(), pin) }),
  z.strictObject({ kind: z.literal('restart_server'), server: serverNameSchema }),
])
export type Fix = z.infer<typeof fixSchema>

export const remediateSchema = z.strictObject({ fix: fixSchema, check: preflightFormSchema, requestId: requestIdSchema })

/** The meta preview's request (POST /api/dashboard/preview): what the page would send, and as which era of the protocol. */
export const previewSchema = z.strictObject({
  ids: z.array(z.string().max(256)).max(50, 'Shape A carries at most 50 ids'),
  token: tokenNameSchema.nullable(),
  profile: profileNameSchema.nullable(),
  policy: policySchema,
  era: z.enum(['modern', 'legacy']),
  resolve: z.string().max(256).nullable(),
})
export type PreviewInput = z.infer<typeof previewSchema>

/** A signed-in query route's ?q= (lib/dashboard/query-route.ts). */
export const dashboardQuerySchema = z.string().max(256)

/** The tool a review is loaded for (GET /api/dashboard/review?id=). */
export const reviewIdSchema = z.string().min(1).max(512)
