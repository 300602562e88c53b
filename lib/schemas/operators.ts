import { z } from 'zod'
import { OPERATOR_SOURCES, ROLES, type Role } from '@/lib/core/roles'
import { returnPathSchema } from '@/lib/schemas/return-path'

/**
 * People: accounts, their personal tokens, signing in (key, password, invitation, single
 * sign-on). The dashboard's actions, the CLI, state files and the SSO callback parse with these.
 */

/** Names the activity log already uses for non-people: no account may take them. */
const RESERVED = new Set(['operator', 'runtime', 'anonymous', 'break-glass', 'toolgate', 'surface', 'system'])

export const usernameSchema = z.string().trim().toLowerCase()
  .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'a username is 1–63 of a-z, 0-9, ".", "_", "-", starting with a letter or digit')
  .refine((u) => !RESERVED.has(u), { message: 'that username is reserved (the activity log uses it for something else)' })
export const roleSchema = z.enum(ROLES, { message: `a role is one of ${ROLES.join(', ')}` })
export const emailSchema = z.string().trim().toLowerCase().email('an e-mail address looks like name@example.com').max(254)
export const displayNameSchema = z.string().trim().min(1, 'give the person a name').max(120)
export const operatorSourceSchema = z.enum(OPERATOR_SOURCES)

export const MIN_PASSWORD_LENGTH = 12

export const newOperatorSchema = z.strictObject({
  username: usernameSchema,
  name: displayNameSchema,
  email: emailSchema.nullable().default(null),
  role: roleSchema,
})
export type NewOperator = z.input<typeof newOperatorSchema>

const PERSONAL_TOKEN_MAX_DAYS = 365

export const personalTokenSchema = z.strictObject({
  name: z.string().trim().min(1, 'name the token (what it is for)').max(80),
  role: roleSchema.optional(),
  days: z.number().int().min(1, 'a token lasts at least 1 day').max(PERSONAL_TOKEN_MAX_DAYS, `a token lasts at most ${PERSONAL_TOKEN_MAX_DAYS} days`).default(30),
})
export type NewPersonalToken = z.input<typeof personalTokenSchema>

// ---- the dashboard's account actions (lib/actions/operators.ts)

export const changeOperatorSchema = z.strictObject({ username: usernameSchema, role: roleSchema.optional(), enabled: z.boolean().optional() })
export const sessionIdSchema = z.strictObject({ id: z.string().regex(/^[0-9a-f]{16}$/, 'a session id is 16 hex digits') })
export const personalTokenIdSchema = z.strictObject({ id: z.string().regex(/^pt_[A-Za-z0-9_-]{1,40}$/, 'a token id looks like pt_…') })

// ---- signing in (lib/actions/sign-in.ts)

export const keySignInSchema = z.strictObject({ key: z.string().trim().min(1, 'enter the break-glass key').max(512), next: returnPathSchema })
export const passwordSignInSchema = z.strictObject({
  login: z.string().trim().min(1, 'enter your username or e-mail').max(254),
  password: z.string().min(1, 'enter your password').max(1024),
  next: returnPathSchema,
})
export const invitationSchema = z.strictObject({
  token: z.string().regex(/^tg_iv_[A-Za-z0-9_-]{32}$/, 'this invitation link is incomplete: open the whole link you were sent'),
  password: z.string().min(MIN_PASSWORD_LENGTH, `choose a password of at least ${MIN_PASSWORD_LENGTH} characters`).max(1024),
})

// ---- single sign-on (lib/auth/oidc.ts)

const list = (v: string | undefined) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean)

/** SSO's environment variables (set only when TOOLGATE_OIDC_ISSUER is). */
export const oidcEnvSchema = z.object({
  TOOLGATE_OIDC_ISSUER: z.url({ protocol: /^https?$/, message: 'an issuer URL, e.g. https://login.example.com/realms/team' }),
  TOOLGATE_OIDC_CLIENT_ID: z.string().trim().min(1, 'the client id registered at the provider'),
  TOOLGATE_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  TOOLGATE_OIDC_NAME: z.string().trim().min(1).max(40).optional(),
  TOOLGATE_OIDC_SCOPES: z.string().trim().default('openid email profile')
    .refine((s) => s.split(/\s+/).includes('openid'), 'the scopes must include openid'),
  TOOLGATE_OIDC_ALLOWED_DOMAINS: z.string().optional()
    .transform((v) => list(v).map((d) => d.toLowerCase().replace(/^@/, '')))
    .refine((ds) => ds.every((d) => /^[a-z0-9.-]+\.[a-z]{2,}$/.test(d)), 'comma-separated e-mail domains, e.g. example.com,example.org'),
  TOOLGATE_OIDC_ROLE_CLAIM: z.string().trim().min(1).default('groups'),
  TOOLGATE_OIDC_ROLES: z.string().optional().transform((v, ctx) => {
    const map = new Map<string, Role>()
    for (const pair of list(v)) {
      const [group, role] = pair.split('=').map((s) => s.trim())
      const r = roleSchema.safeParse(role)
      if (!group || !r.success) {
        ctx.addIssue({ code: 'custom', message: `"${pair}" is not group=role (a role is one of ${ROLES.join(', ')})` })
        return z.NEVER
      }
      map.set(group, r.data)
    }
    return map
  }),
  TOOLGATE_OIDC_DEFAULT_ROLE: z.union([z.literal('').transform(() => null), roleSchema]).optional(),
})

/** A sign-in in progress, as its sealed flow cookie carries it. */
export const oidcFlowSchema = z.strictObject({
  state: z.string().min(20), nonce: z.string().min(20), verifier: z.string().min(43),
  redirectUri: z.url(), next: z.string(), at: z.number().int(),
})
export type OidcFlow = z.infer<typeof oidcFlowSchema>
