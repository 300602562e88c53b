import { z } from 'zod'
import { actions, verdicts, type Reason } from '@/lib/preflight/taxonomy'
import { idBoundsFault, MAX_CHECK_IDS } from '@/lib/preflight/ids'
import { issuePath } from '@/lib/schemas/issues'
import { policySchema } from '@/lib/schemas/preflight'

/**
 * The app.mcpproxy/required-tools extension, v1: toolgate's own copy of the wire rules it
 * accepts and emits (seed 000, companion schema required-tools-extension.schema.json).
 * Riders are parsed with these schemas at the boundary; the tests hold every facet the
 * server emits to both these schemas and the shared JSON Schema, so the two cannot drift.
 */
export const EXTENSION_ID = 'app.mcpproxy/required-tools'
/** Fixed in v1 and informational in the settings object (seed: "not a negotiable value"). */
export const MAX_RIDER_TOOLS = MAX_CHECK_IDS

export const settingsSchema = z.strictObject({ version: z.literal(1), max_tools: z.literal(MAX_RIDER_TOOLS).optional() })
export const serverSettings = { version: 1, max_tools: MAX_RIDER_TOOLS } as const satisfies z.infer<typeof settingsSchema>
export const legacySettings = { version: 1 } as const satisfies z.infer<typeof settingsSchema>

/**
 * The 12 codes the extension can emit. The extension always evaluates at the agent-token
 * tier, so server_not_in_scope and server_not_configured collapse into not_found, and
 * hash_mismatch cannot fire because pins are reserved in v1.
 */
export const wireReasons = [
  'server_initializing', 'server_unhealthy', 'server_disabled', 'server_quarantined',
  'tool_pending_approval', 'tool_changed', 'tool_blocked_by_user', 'oauth_required',
  'tool_denied_by_config', 'missing_annotation', 'policy_filtered', 'not_found',
] as const satisfies readonly Reason[]
const retryableReasons: ReadonlySet<string> = new Set<Reason>(['server_initializing', 'server_unhealthy'])

/** Fields a v1 sender must not include; their presence is a malformed rider. */
export const reservedRiderFields = ['pin_hash', 'expect_hashes', 'wait_ms', 'profile'] as const
export const reservedEntryFields = ['pin_hash', 'expect_hashes'] as const

// ---- the request rider -------------------------------------------------------------------

const objectError = (what: string) => (iss: { code: string; keys?: string[] }) =>
  iss.code === 'unrecognized_keys' ? `has unknown ${what} ${(iss.keys ?? []).map((k) => `"${k}"`).join(', ')}` : 'must be an object'

export const riderSchema = z.strictObject({
  tools: z.array(
    z.strictObject({
      // The companion schema asks for a non-empty id; a blank one would be echoed trimmed
      // as "" and so could never form a valid result, hence the trim.
      id: z.string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
        .refine((s) => s.trim() !== '', 'must be a non-empty string')
        .superRefine((id, ctx) => {
          const fault = idBoundsFault(id)
          if (fault) ctx.addIssue({ code: 'custom', message: `is too long: ${fault}` })
        }),
    }, { error: objectError('field') }),
    { error: (iss) => (iss.input === undefined ? 'is required' : 'must be an array') },
  ).min(1, 'must not be empty').max(MAX_RIDER_TOOLS, `must have at most ${MAX_RIDER_TOOLS} entries`),
  policy: policySchema.optional(),
}, { error: objectError('field') })
export type Rider = z.infer<typeof riderSchema>


export class RiderError extends Error {}

/**
 * Parse a negotiated rider or throw a RiderError naming every fault. Checks run in the
 * order a reader needs them: reserved fields and the raw 50-entry cap (counted before any
 * de-duplication) first, then shape.
 */
export function parseRider(raw: unknown): Rider {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new RiderError('rider must be an object')
  const faults: string[] = []
  const obj = raw as Record<string, unknown>
  for (const f of reservedRiderFields) if (f in obj) faults.push(`rider.${f} is reserved in v1 and must not be sent`)
  if (Array.isArray(obj.tools)) {
    if (obj.tools.length > MAX_RIDER_TOOLS) faults.push(`rider.tools has ${obj.tools.length} entries (max ${MAX_RIDER_TOOLS})`)
    obj.tools.forEach((entry, i) => {
      if (entry === null || typeof entry !== 'object') return
      for (const f of reservedEntryFields) if (f in entry) faults.push(`rider.tools[${i}].${f} is reserved in v1 and must not be sent`)
    })
  }
  if (faults.length) throw new RiderError(faults.join('; '))
  const parsed = riderSchema.safeParse(raw)
  if (!parsed.success) throw new RiderError(parsed.error.issues.map((i) => `${issuePath('rider', i.path)} ${i.message}`).join('; '))
  return parsed.data
}

// ---- the response facets (what toolgate emits) -------------------------------------------

const unavailableFields = {
  status: z.literal('unavailable'),
  reason: z.enum(wireReasons),
  retryable: z.boolean(),
  action: z.enum(actions).optional(),
  detail: z.string().optional(),
  remediation: z.string().optional(),
  did_you_mean: z.array(z.string()).max(3).optional(),
}
const readyFields = { status: z.literal('ready') }
const readySchema = z.strictObject(readyFields)
const unavailableSchema = z.strictObject(unavailableFields)
const id = z.string().min(1)

/** The companion schema's conditional rules: retryable follows the reason; suggestions only on not_found. */
function verdictRules(t: z.infer<typeof readySchema> | z.infer<typeof unavailableSchema>, ctx: z.RefinementCtx) {
  if (t.status === 'ready') return
  const retryable = retryableReasons.has(t.reason)
  if (t.retryable !== retryable) ctx.addIssue({ code: 'custom', message: `${t.reason} must have retryable ${retryable}` })
  if (t.did_you_mean !== undefined && t.reason !== 'not_found') ctx.addIssue({ code: 'custom', message: 'did_you_mean only rides not_found' })
}

/** Shape A: one entry of the batch facet (id required; a ready entry is id and status only). */
export const facetToolSchema = z.discriminatedUnion('status', [
  z.strictObject({ id, ...readyFields }), z.strictObject({ id, ...unavailableFields }),
]).superRefine(verdictRules)
/** Shape B: the single verdict on a resolved tool (no id: the tool names itself). */
export const resolveFacetSchema = z.discriminatedUnion('status', [readySchema, unavailableSchema]).superRefine(verdictRules)

export const facetSchema = z.strictObject({
  verdict: z.enum(verdicts),
  checked_at: z.iso.datetime({ offset: true }),
  request_id: z.string().optional(),
  tools: z.array(facetToolSchema).min(1),
})
export type Facet = z.infer<typeof facetSchema>
export type FacetTool = z.infer<typeof facetToolSchema>
export type ResolveFacet = z.infer<typeof resolveFacetSchema>
