import { z } from 'zod'

/**
 * Inputs of the shared admin mutations (servers' settings, tokens, profiles), parsed by every
 * caller — dashboard actions today, the CLI tomorrow — so the rules live in one place.
 */
const name = (what: string) => z.string().trim()
  .min(1, `${what} name must not be empty`)
  .max(64, `${what} name must be at most 64 characters`)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, `${what} name may use letters, digits, ".", "_" and "-", starting with a letter or digit`)

export const tokenNameSchema = name('token')
export const profileNameSchema = name('profile')
export const serverNameSchema = z.string().trim().min(1, 'server name must not be empty')
export const toolNameListSchema = z.array(z.string().trim().min(1, 'tool names must not be empty')).max(1000)

/** A token's scope: allowed servers ("*" = all, [] = none) and an optional profile pin. */
export const tokenScopeSchema = z.strictObject({
  allowedServers: z.array(z.string().trim().min(1, 'server names must not be empty')).max(1000),
  profilePin: profileNameSchema.nullable(),
})
export type TokenScope = z.infer<typeof tokenScopeSchema>

export const serverSettingsSchema = z.strictObject({
  disabledTools: toolNameListSchema,
  // null = every tool allowed; an array = allowlist
  enabledTools: toolNameListSchema.nullable(),
  trust: z.enum(['manual', 'auto']),
})
export type ServerSettings = z.infer<typeof serverSettingsSchema>
