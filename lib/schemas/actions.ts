import { z } from 'zod'
import { definitionGroupNames } from '@/lib/core/definition'
import { profileNameSchema, serverNameSchema, serverSettingsSchema, tokenExpirySchema, tokenNameSchema, tokenScopeSchema } from '@/lib/schemas/admin'
import { requestIdSchema } from '@/lib/schemas/request-id'
import { strictReturnPathSchema } from '@/lib/schemas/return-path'

/**
 * The inputs of the dashboard's server actions (lib/actions/*), one export per action or
 * shared part. Rules the CLI shares live in the subject's own module (admin.ts, operators.ts …).
 */

/** An action that takes no input. */
export const noInputSchema = z.strictObject({})

const pin = z.string().max(200)
const pins = z.record(z.string().max(2048), pin)

// ---- servers (lib/actions/servers.ts, upstream.ts, onboarding.ts, preflight.ts)

export const serverSchema = z.strictObject({ server: serverNameSchema })

const serverStateChanges = ['enable', 'disable', 'quarantine'] as const
export type ServerStateChange = (typeof serverStateChanges)[number]
export const serverStateSchema = z.strictObject({ server: serverNameSchema, change: z.enum(serverStateChanges) })

export const serverSettingsInputSchema = z.strictObject({ server: serverNameSchema, settings: serverSettingsSchema })

export const releaseSchema = z.strictObject({ server: serverNameSchema, shown: pins, shownDefinitions: pins.optional(), confirm: z.boolean().optional() })

export const startLoginSchema = z.strictObject({ server: serverNameSchema, returnTo: strictReturnPathSchema, requestId: requestIdSchema.optional() })

export const setSecretSchema = z.strictObject({
  server: serverNameSchema,
  name: z.string().trim().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'a secret name is an environment-variable name (letters, digits, "_")'),
  value: z.string().min(1, 'the secret value must not be empty').max(16_384),
})

/** The add-server form: a program (stdio) or a URL; lib/admin/upstreams.ts checks the name and transport. */
export const addServerFormSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('stdio'), name: z.string().max(200), command: z.string().trim().min(1, 'give the program that starts the server'), args: z.array(z.string().max(4096)).max(100), trusted: z.boolean() }),
  z.strictObject({ kind: z.literal('http'), name: z.string().max(200), url: z.string().trim().min(1, 'give the server\'s MCP endpoint, https://…/mcp'), trusted: z.boolean() }),
], { error: 'kind: choose stdio (a command) or http (a URL)' })

export const importServersFormSchema = z.strictObject({ json: z.string().trim().min(1, 'paste an {"mcpServers": {…}} document').max(200_000, 'at most 200,000 characters'), trusted: z.boolean() })

// ---- tools and definitions (lib/actions/servers.ts)

const bulkVerbs = ['approve', 'block', 'enable'] as const
export type BulkVerb = (typeof bulkVerbs)[number]

export const changeToolsSchema = z.strictObject({
  verb: z.enum(bulkVerbs),
  ids: z.array(z.string().trim().min(3, 'a tool id is <server>:<tool>').max(256)).min(1, 'select at least one tool').max(1000),
  hashes: z.record(z.string(), pin).optional(),
  confirm: z.boolean().optional(),
}).refine((i) => i.verb !== 'approve' || i.ids.every((id) => i.hashes?.[id] !== undefined), { message: 'approve names the pin of each definition you were shown (review first)', path: ['hashes'] })

export const callApprovalSchema = z.strictObject({ id: z.string().trim().min(3).max(256), on: z.boolean() })

export const approveDefinitionSchema = z.strictObject({ group: z.enum(definitionGroupNames), id: z.string().trim().min(1, 'name what to approve').max(2048), hash: pin })

// ---- held calls (lib/actions/calls.ts)

const callId = z.string().regex(/^call_[A-Za-z0-9_-]{1,40}$/, 'a call id looks like call_…')
// pin null: a call requested before pins were kept with it, which cannot be approved as shown
export const approveCallSchema = z.strictObject({ id: callId, pin: z.string().max(200, 'a pin is at most 200 characters').nullable() })
export const denyCallSchema = z.strictObject({ id: callId, reason: z.string().trim().max(500, 'a reason is at most 500 characters').optional() })

// ---- agent tokens and profiles (lib/actions/access.ts)

export const tokenInputSchema = z.strictObject({ name: tokenNameSchema, scope: tokenScopeSchema })
export const newTokenSchema = tokenInputSchema.extend({ expiresAt: tokenExpirySchema.default(null) })
export const tokenExpiryInputSchema = z.strictObject({ name: tokenNameSchema, expiresAt: tokenExpirySchema })
export const rotateTokenSchema = z.strictObject({ name: tokenNameSchema, expiresAt: tokenExpirySchema.optional() })
export const tokenSchema = z.strictObject({ name: tokenNameSchema })
export const profileInputSchema = z.strictObject({ name: profileNameSchema, servers: z.array(serverNameSchema).max(1000) })
export const profileSchema = z.strictObject({ name: profileNameSchema })

// ---- the Overview's triage (lib/actions/triage.ts)

/** How long an acknowledgement hides an item (lib/admin/triage.ts ACK_SPANS: for how long). */
const ackSpans = ['until_changed', '1h', '1d'] as const
export type AckSpan = (typeof ackSpans)[number]

// an Overview item's key (lib/dashboard/overview.ts causeKey) and the fingerprint it was shown with
const itemKey = z.string().regex(/^agent:[^\n]{1,500}$/, 'an Overview item key (agent:<token>:<cause>)')
const fingerprint = z.string().regex(/^[0-9a-f]{16}$/, 'the item\'s fingerprint as shown (16 hex digits)')
export const acknowledgeSchema = z.strictObject({ key: itemKey, fingerprint, span: z.enum(ackSpans) })
export const unacknowledgeSchema = z.strictObject({ key: itemKey })
