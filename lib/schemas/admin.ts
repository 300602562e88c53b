import { z } from 'zod'
import { profileNameSchema, serverNameSchema } from '@/lib/schemas/names'
import { isolations, samplingSettings, trusts } from '@/lib/core/state'
import { transportSchema } from '@/lib/schemas/transport'

export { profileNameSchema, serverNameSchema, tokenNameSchema } from '@/lib/schemas/names'

/**
 * Inputs of the shared admin mutations (servers' settings, tokens, profiles, proxy settings),
 * parsed by every caller — dashboard actions, the CLI, state files — so the rules live in one place.
 */
export const toolNameListSchema = z.array(z.string().trim().min(1, 'tool names must not be empty').max(256, 'tool names are at most 256 characters')).max(1000)

/** A token's scope: allowed servers ("*" = all, [] = none) and an optional profile pin. */
export const tokenScopeSchema = z.strictObject({
  allowedServers: z.array(z.union([z.literal('*'), serverNameSchema])).max(1000),
  profilePin: profileNameSchema.nullable(),
})
export type TokenScope = z.infer<typeof tokenScopeSchema>

/** When an agent token stops working (ms since the epoch), or null for never; set from now on, it must lie ahead. */
export const tokenExpirySchema = z.number().int('must be a whole number of milliseconds').nullable()
  .refine((at) => at === null || at > Date.now(), 'must be in the future (or null: never expires)')

/** A server's call timeout: long enough for real tools, bounded so a hung call ends. */
export const callTimeoutSchema = z.number().int('must be a whole number of milliseconds')
  .min(1_000, 'must be at least 1000 ms').max(24 * 60 * 60_000, 'must be at most 86400000 ms (24 hours)')

/** Roots declared to a server when it asks (MCP roots): file:// URIs, optionally named. */
export const rootsSchema = z.array(z.strictObject({
  uri: z.string().regex(/^file:\/\//, 'a root is a file:// URI'),
  name: z.string().min(1).max(200).optional(),
})).max(100, 'at most 100 roots')

/** A server's sampling: its requests put to the caller's model (relay), or refused unasked and the capability not declared (withhold). */
export const samplingSchema = z.enum(samplingSettings, { message: 'sampling must be relay or withhold' })

export const serverSettingsSchema = z.strictObject({
  disabledTools: toolNameListSchema,
  // null = every tool allowed; an array = allowlist
  enabledTools: toolNameListSchema.nullable(),
  trust: z.enum(trusts),
  callTimeoutMs: callTimeoutSchema,
  roots: rootsSchema,
  // who shares one upstream session (lib/core/state.ts isolationRuns)
  isolation: z.enum(isolations),
  // whether its sampling requests reach the caller's model (relay) or are refused unasked (withhold)
  sampling: samplingSchema,
})
export type ServerSettings = z.infer<typeof serverSettingsSchema>

export const retentionDaysSchema = z.number().int('must be a whole number of days')
  .min(1, 'must be at least 1 day (null keeps everything)').max(36_500, 'must be at most 36500 days')

export const callApprovalWaitSchema = z.number().int('must be a whole number of milliseconds')
  .min(0, 'must be at least 0 ms').max(15 * 60_000, 'must be at most 900000 ms (15 minutes)')

export const requestsPerSecondSchema = z.number().int('must be a whole number of requests')
  .min(1, 'must be at least 1 request a second (null: no limit)').max(1_000_000, 'must be at most 1000000')
export const recordedMibPerHourSchema = z.number().int('must be a whole number of MiB')
  .min(1, 'must be at least 1 MiB an hour (null: no limit)').max(1_048_576, 'must be at most 1048576 (1 TiB)')

export const twoPersonRuleSchema = z.enum(['off', 'destructive', 'all'], { message: 'two_person_rule must be off, destructive or all' })

export const overlapCeilingSchema = z.number().gt(0, 'must be above 0 (null reports only)').max(1, 'must be at most 1 (a cosine)')

/** Proxy-wide settings an operator may change (state-file names). */
export const settingsPatchSchema = z.strictObject({
  quarantine_enabled: z.boolean().optional(),
  mcp_anonymous_profile: profileNameSchema.nullable().optional(),
  activity_retention_days: retentionDaysSchema.nullable().optional(),
  call_approval_wait_ms: callApprovalWaitSchema.optional(),
  max_description_overlap: overlapCeilingSchema.nullable().optional(),
  agent_requests_per_second: requestsPerSecondSchema.nullable().optional(),
  agent_recorded_mib_per_hour: recordedMibPerHourSchema.nullable().optional(),
  break_glass_key: z.boolean().optional(),
  two_person_rule: twoPersonRuleSchema.optional(),
  local_accounts: z.boolean().optional(),
})
export type SettingsPatch = z.infer<typeof settingsPatchSchema>

/** A new upstream (`toolgate upstream add`, the dashboard's form, each imported entry). */
export const addServerSchema = z.strictObject({
  name: serverNameSchema,
  transport: transportSchema,
  // trusted = not quarantined on arrival; its first discovery becomes the approved baseline
  trusted: z.boolean().default(false),
  trust: z.enum(trusts).default('manual'),
})

/** One entry of `{"mcpServers": {...}}` as common MCP clients write it. */
export const mcpServerEntrySchema = z.union([
  z.object({ command: z.string().min(1), args: z.array(z.string()).optional(), env: z.record(z.string(), z.string()).optional(), cwd: z.string().min(1).optional(), type: z.literal('stdio').optional() }),
  z.object({ url: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL, such as https://mcp.example.com/mcp' }), headers: z.record(z.string(), z.string()).optional(), type: z.enum(['http', 'streamable-http', 'streamableHttp', 'sse']).optional() }),
], { error: 'expected a stdio entry ({"command": …}) or a remote one ({"url": …})' })
export const mcpServersFileSchema = z.object({ mcpServers: z.record(z.string(), z.unknown()) })
