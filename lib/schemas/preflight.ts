import { z } from 'zod'
import { badRequest } from '@/lib/core/errors'
import { profileNameSchema } from '@/lib/schemas/names'
import { idBoundsFault } from '@/lib/preflight/ids'
import { formatIssues } from '@/lib/schemas/issues'
import type { EvaluationInput } from '@/lib/preflight/evaluate'

export const MAX_REST_IDS = 100
export const MAX_WAIT_MS = 10_000

const mustBeBoolean = { error: 'must be a boolean' }

/** The annotation policy filters, one rule for every surface (REST, CLI, the rider, describe_tool, the dashboard). */
export const policySchema = z.strictObject({
  read_only_only: z.boolean(mustBeBoolean).optional(),
  exclude_destructive: z.boolean(mustBeBoolean).optional(),
  exclude_open_world: z.boolean(mustBeBoolean).optional(),
}, { error: (iss) => (iss.code === 'unrecognized_keys' ? `has unknown member ${(iss.keys ?? []).map((k) => `"${k}"`).join(', ')}` : 'must be an object') })

/** POST /api/v1/preflight body (contract §9). Unknown fields are rejected at every level. */
export const preflightBodySchema = z.strictObject({
  tools: z.array(z.strictObject({
    id: z.string().superRefine((id, ctx) => {
      const fault = idBoundsFault(id)
      if (fault) ctx.addIssue({ code: 'custom', message: fault })
    }),
    pin_hash: z.string().max(200, 'pin_hash must be at most 200 characters').optional(),
  }))
    .min(1, 'tools must not be empty')
    .max(MAX_REST_IDS, `too many tools: at most ${MAX_REST_IDS} entries`),
  profile: profileNameSchema.optional(),
  policy: policySchema.optional(),
  wait_ms: z.number().int('wait_ms must be an integer').min(0, 'wait_ms must be ≥ 0').max(MAX_WAIT_MS, `wait_ms must be ≤ ${MAX_WAIT_MS}`).optional(),
})
export type PreflightBody = z.infer<typeof preflightBodySchema>


/** Validate a parsed body into an evaluation input; throws bad_request naming the fault. */
export function parsePreflightBody(body: unknown): { input: EvaluationInput; waitMs?: number } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('request body must be one JSON object')
  const parsed = preflightBodySchema.safeParse(body)
  if (!parsed.success) {
    const tooMany = Array.isArray((body as { tools?: unknown }).tools) && (body as { tools: unknown[] }).tools.length > MAX_REST_IDS
    throw badRequest(tooMany ? `too many tools: ${(body as { tools: unknown[] }).tools.length} (max ${MAX_REST_IDS})` : formatIssues(parsed.error))
  }
  const { tools, profile, policy, wait_ms } = parsed.data
  return { input: { ids: tools.map((t) => t.id), pins: pinsOf(tools), profile, policy }, waitMs: wait_ms }
}

/** Pins keyed by trimmed id; the same id with different pins (absent vs present too) is a 400. */
export function pinsOf(tools: readonly { id: string; pin_hash?: string }[]): Map<string, string> {
  const seen = new Map<string, string | undefined>()
  for (const { id, pin_hash } of tools) {
    const key = id.trim()
    if (seen.has(key) && seen.get(key) !== pin_hash) throw badRequest(`conflicting pin_hash values for "${key}"`)
    seen.set(key, pin_hash)
  }
  const pins = new Map<string, string>()
  for (const [k, v] of seen) if (v !== undefined) pins.set(k, v)
  return pins
}
