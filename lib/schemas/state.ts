import { z } from 'zod'
import { approvalStatuses, connectionActions, connectionStates, trusts } from '@/lib/core/state'
import { settingsDefaults } from '@/db/queries/settings'
import { displayNameSchema, emailSchema, operatorSourceSchema, roleSchema, usernameSchema } from '@/lib/schemas/operators'
import { jsonObjectSchema as json } from '@/lib/schemas/json'
import { transportSchema } from '@/lib/schemas/transport'
import { callApprovalWaitSchema, callTimeoutSchema, overlapCeilingSchema, profileNameSchema, recordedMibPerHourSchema, requestsPerSecondSchema, retentionDaysSchema, rootsSchema, samplingSchema, serverNameSchema, tokenNameSchema, twoPersonRuleSchema } from '@/lib/schemas/admin'

/** The state file, version 1 (see docs/state-file.md). Strict: unknown fields are errors. */

/** The served fields of a tool besides its name, as given (contract §6: the pin covers them all). */
const servedFields = {
  title: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  output_schema: json.nullable().optional(),
  annotations: json.nullable().optional(),
  execution: json.nullable().optional(),
  icons: z.array(z.unknown()).nullable().optional(),
  _meta: json.nullable().optional(),
}

const toolSchema = z.strictObject({
  name: z.string().min(1).max(256),
  ...servedFields,
  input_schema: json.default({ type: 'object' }),
  approval: z.strictObject({
    status: z.enum(approvalStatuses),
    disabled: z.boolean().default(false),
    // for "changed": the approved definition; any served field may appear here
    previous: z.strictObject({ ...servedFields, input_schema: json.optional() }).nullable().optional(),
  }).optional(),
})

const serverSchema = z.strictObject({
  name: serverNameSchema,
  enabled: z.boolean().default(true),
  quarantined: z.boolean().default(false),
  trust: z.enum(trusts).default('manual'),
  disabled_tools: z.array(z.string()).default([]),
  enabled_tools: z.array(z.string()).nullable().default(null),
  call_approval_tools: z.array(z.string()).default([]),
  call_timeout_ms: callTimeoutSchema.default(600_000),
  roots: rootsSchema.default([]),
  sampling: samplingSchema.default('relay'),
  transport: transportSchema.nullable().optional(),
  connection: z.strictObject({
    state: z.enum(connectionStates),
    detail: z.string().nullable().optional(),
    action: z.enum(connectionActions).nullable().optional(),
  }).optional(),
  tools: z.array(toolSchema).default([]),
})

const tokenSchema = z.strictObject({
  name: tokenNameSchema,
  token: z.string().min(8, 'token must be at least 8 characters').optional(),
  // what `state dump` writes, since the secret itself is never stored
  token_hash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'token_hash must be sha256:<64 hex digits>').optional(),
  allowed_servers: z.array(z.union([z.literal('*'), serverNameSchema])),
  profile_pin: profileNameSchema.nullable().default(null),
  // when the token stops working; a past time loads too (a dump of an expired token loads back: it stays refused)
  expires_at: z.iso.datetime({ offset: true, message: 'expires_at must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z' }).nullable().default(null),
})

/** An operator account without its secrets: no password hash, sessions, tokens or invitations are ever in a file. */
const operatorSchema = z.strictObject({
  username: usernameSchema,
  name: displayNameSchema,
  email: emailSchema.nullable().default(null),
  role: roleSchema,
  enabled: z.boolean().default(true),
  source: operatorSourceSchema.default('local'),
  // the identity provider's `iss` + " " + `sub` the account is linked to (an identifier, not a secret)
  oidc_subject: z.string().min(1).nullable().default(null),
})

export const stateFileSchema = z.strictObject({
  version: z.literal(1),
  settings: z.strictObject({
    quarantine_enabled: z.boolean().default(settingsDefaults.quarantineEnabled),
    mcp_anonymous_profile: profileNameSchema.nullable().default(settingsDefaults.mcpAnonymousProfile),
    activity_retention_days: retentionDaysSchema.nullable().default(settingsDefaults.activityRetentionDays),
    call_approval_wait_ms: callApprovalWaitSchema.default(settingsDefaults.callApprovalWaitMs),
    max_description_overlap: overlapCeilingSchema.nullable().default(settingsDefaults.maxDescriptionOverlap),
    agent_requests_per_second: requestsPerSecondSchema.nullable().default(settingsDefaults.agentRequestsPerSecond),
    agent_recorded_mib_per_hour: recordedMibPerHourSchema.nullable().default(settingsDefaults.agentRecordedMibPerHour),
    break_glass_key: z.boolean().default(settingsDefaults.breakGlassKey),
    two_person_rule: twoPersonRuleSchema.default(settingsDefaults.twoPersonRule),
    local_accounts: z.boolean().default(settingsDefaults.localAccounts),
  }).prefault({}),
  servers: z.array(serverSchema).default([]),
  profiles: z.array(z.strictObject({ name: profileNameSchema, servers: z.array(serverNameSchema) })).default([]),
  agent_tokens: z.array(tokenSchema).default([]),
  // absent: the accounts stay as they are (a file from before named operators)
  operators: z.array(operatorSchema).optional(),
})

type Issue = { path: (string | number)[]; message: string }
const asArray = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null) : []

/**
 * Cross-entry rules (uniqueness, one of token/token_hash). They read the raw document so they
 * are reported together with the field errors, not only once those are fixed.
 */
export function crossEntryIssues(doc: unknown): Issue[] {
  const issues: Issue[] = []
  const root = (typeof doc === 'object' && doc !== null ? doc : {}) as Record<string, unknown>
  const unique = (items: Record<string, unknown>[], key: string, path: (i: number) => Issue['path'], what: string, norm = (s: string) => s) => {
    const seen = new Set<unknown>()
    items.forEach((it, i) => {
      const k = typeof it[key] === 'string' ? norm(it[key]) : undefined
      if (k === undefined) return
      if (seen.has(k)) issues.push({ path: path(i), message: `duplicate ${what} "${String(it[key])}"` })
      seen.add(k)
    })
  }
  const servers = asArray(root.servers)
  unique(servers, 'name', (i) => ['servers', i, 'name'], 'server name')
  servers.forEach((srv, si) => unique(asArray(srv.tools), 'name', (i) => ['servers', si, 'tools', i, 'name'], 'tool name'))
  unique(asArray(root.profiles), 'name', (i) => ['profiles', i, 'name'], 'profile name')
  const tokens = asArray(root.agent_tokens)
  unique(tokens, 'name', (i) => ['agent_tokens', i, 'name'], 'token name')
  unique(tokens, 'token', (i) => ['agent_tokens', i, 'token'], 'token secret')
  tokens.forEach((t, i) => {
    if ((t.token === undefined) === (t.token_hash === undefined)) issues.push({ path: ['agent_tokens', i], message: 'give exactly one of token or token_hash' })
  })
  const people = asArray(root.operators)
  const folded = (s: string) => s.trim().toLowerCase() // as the account schemas store them
  unique(people, 'username', (i) => ['operators', i, 'username'], 'username', folded)
  unique(people, 'email', (i) => ['operators', i, 'email'], 'e-mail', folded)
  unique(people, 'oidc_subject', (i) => ['operators', i, 'oidc_subject'], 'SSO subject')
  people.forEach((o, i) => {
    if (o.source === 'bootstrap' && people.findIndex((x) => x.source === 'bootstrap') !== i) issues.push({ path: ['operators', i, 'source'], message: 'only one account is the bootstrap admin' })
  })
  const settings = (typeof root.settings === 'object' && root.settings !== null ? root.settings : {}) as Record<string, unknown>
  if (root.operators !== undefined && settings.break_glass_key === false && !people.some((o) => o.role === 'admin' && o.enabled !== false && o.source !== 'bootstrap')) {
    issues.push({ path: ['operators'], message: 'with settings.break_glass_key false, name an enabled admin account (other than the bootstrap admin): else nobody could sign in as an admin' })
  }
  return issues
}

export type StateFile = z.infer<typeof stateFileSchema>
export type StateFileInput = z.input<typeof stateFileSchema>
