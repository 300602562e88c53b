/** The five roles, least to most: the one list every role rule and schema derives from (lib/auth/roles.ts says what each may do). */
export const ROLES = ['viewer', 'auditor', 'operator', 'approver', 'admin'] as const
export type Role = (typeof ROLES)[number]

/** Where an account came from: the break-glass key's bootstrap admin, made here, or single sign-on. */
export const OPERATOR_SOURCES = ['bootstrap', 'local', 'oidc'] as const
export type OperatorSource = (typeof OPERATOR_SOURCES)[number]
