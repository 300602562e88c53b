/**
 * Roles as one table: what each of the five roles may do. Every page, route handler, server
 * action, REST endpoint and CLI command asks `can(role, permission)`; a refusal names the
 * roles that may (`refusal`). Dependency-free: the dashboard's client components read it too,
 * to show only the buttons a person may use.
 */
import { ROLES, type Role } from '@/lib/core/roles'

export { ROLES, type Role }

export const PERMISSIONS = {
  /** every page and read: servers, tools, activity (without call arguments), settings, tokens */
  view: 'read the dashboard',
  /** held calls' arguments and the call bodies in activity records */
  view_arguments: 'read call arguments',
  export_activity: 'export the activity log',
  /** restart, log in upstreams, enable/disable/quarantine servers, inspect, run preflight */
  operate: 'operate servers and run preflight',
  /** approve/block tools and definitions, release quarantine, decide held calls, per-server tool settings */
  approve: 'approve tools, release servers and decide held calls',
  /** accounts, settings, agent tokens and profiles, upstream secrets, the break-glass key */
  admin: 'manage accounts, settings and tokens',
} as const
export type Permission = keyof typeof PERMISSIONS

// An approver decides held calls, so it reads what they would send.
const TABLE: Record<Permission, readonly Role[]> = {
  view: ROLES,
  view_arguments: ['auditor', 'approver', 'admin'],
  export_activity: ['auditor', 'admin'],
  operate: ['operator', 'approver', 'admin'],
  approve: ['approver', 'admin'],
  admin: ['admin'],
}

export const can = (role: Role, permission: Permission): boolean => TABLE[permission].includes(role)

/** The roles that may, in table order. */
export const rolesFor = (permission: Permission): readonly Role[] => TABLE[permission]

/** "To approve tools, release servers and decide held calls you need the approver or admin role (you are operator)." */
export const refusal = (role: Role, permission: Permission): string =>
  `To ${PERMISSIONS[permission]} you need the ${TABLE[permission].join(' or ')} role (you are ${role}).`

/** Whether `a` carries at most what `b` does: a personal token never exceeds its person. */
export const atMost = (a: Role, b: Role): boolean => (Object.keys(TABLE) as Permission[]).every((p) => !can(a, p) || can(b, p))

export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v)

/** How a person was authenticated, as the activity log says it (`oidc`: a session opened by single sign-on). */
export type AuthMethod = 'session' | 'oidc' | 'token' | 'break-glass'

/** A person acting: who (their account), as what role, and how they proved it. */
export interface Principal {
  operatorId: string
  username: string
  name: string
  role: Role
  auth: AuthMethod
  /** the activity log's actor: the username, or `break-glass` for the shared key */
  actor: string
}
