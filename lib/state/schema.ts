import { z } from 'zod'
import { connectionActions, connectionStates } from '../../db/schema/servers'

/** The state file, version 1 (see docs/state-file.md). Strict: unknown fields are errors. */
const json = z.record(z.string(), z.unknown())

const transportSchema = z.union([
  z.strictObject({ command: z.string().min(1), args: z.array(z.string()).optional(), env: z.record(z.string(), z.string()).optional() }),
  z.strictObject({ url: z.url(), headers: z.record(z.string(), z.string()).optional() }),
])

const toolSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().nullable().optional(),
  input_schema: json.default({ type: 'object' }),
  output_schema: json.nullable().optional(),
  annotations: json.nullable().optional(),
  approval: z.strictObject({
    status: z.enum(['approved', 'pending', 'changed']),
    disabled: z.boolean().default(false),
    previous: z.strictObject({
      description: z.string().nullable().optional(),
      input_schema: json.optional(),
      output_schema: json.nullable().optional(),
    }).nullable().optional(),
  }).optional(),
})

const serverSchema = z.strictObject({
  name: z.string().min(1).refine((n) => !n.includes(':'), 'server name must not contain ":"'),
  enabled: z.boolean().default(true),
  quarantined: z.boolean().default(false),
  trust: z.enum(['manual', 'auto']).default('manual'),
  disabled_tools: z.array(z.string()).default([]),
  enabled_tools: z.array(z.string()).nullable().default(null),
  transport: transportSchema.nullable().optional(),
  connection: z.strictObject({
    state: z.enum(connectionStates),
    detail: z.string().nullable().optional(),
    action: z.enum(connectionActions).nullable().optional(),
  }).optional(),
  tools: z.array(toolSchema).default([]),
})

const tokenSchema = z.strictObject({
  name: z.string().min(1),
  token: z.string().min(8, 'token must be at least 8 characters').optional(),
  // what `state dump` writes, since the secret itself is never stored
  token_hash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'token_hash must be sha256:<64 hex digits>').optional(),
  allowed_servers: z.array(z.string()),
  profile_pin: z.string().nullable().default(null),
})

export const stateFileSchema = z.strictObject({
  version: z.literal(1),
  settings: z.strictObject({ quarantine_enabled: z.boolean().default(true) }).default({ quarantine_enabled: true }),
  servers: z.array(serverSchema).default([]),
  profiles: z.array(z.strictObject({ name: z.string().min(1), servers: z.array(z.string()) })).default([]),
  agent_tokens: z.array(tokenSchema).default([]),
}).superRefine((s, ctx) => {
  const dup = <T>(items: T[], key: (t: T) => string, path: (i: number) => (string | number)[], what: string) => {
    const seen = new Set<string>()
    items.forEach((it, i) => {
      const k = key(it)
      if (seen.has(k)) ctx.addIssue({ code: 'custom', path: path(i), message: `duplicate ${what} "${k}"` })
      seen.add(k)
    })
  }
  dup(s.servers, (x) => x.name, (i) => ['servers', i, 'name'], 'server name')
  s.servers.forEach((srv, si) => dup(srv.tools, (t) => t.name, (i) => ['servers', si, 'tools', i, 'name'], 'tool name'))
  dup(s.profiles, (x) => x.name, (i) => ['profiles', i, 'name'], 'profile name')
  dup(s.agent_tokens, (x) => x.name, (i) => ['agent_tokens', i, 'name'], 'token name')
  dup(s.agent_tokens.filter((t) => t.token), (x) => x.token!, () => ['agent_tokens'], 'token secret')
  s.agent_tokens.forEach((t, i) => {
    if ((t.token === undefined) === (t.token_hash === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['agent_tokens', i], message: 'give exactly one of token or token_hash' })
    }
  })
})

export type StateFile = z.infer<typeof stateFileSchema>
export type StateFileInput = z.input<typeof stateFileSchema>
