/** The closed vocabulary of activity types. */
export const activityTypes = [
  'preflight',
  'tool.approved', 'tool.blocked', 'tool.enabled',
  'server.enabled', 'server.disabled', 'server.quarantined', 'server.unquarantined',
  'state.loaded',
  // upstream runtime (lib/upstream/*): configuration, discovery transitions, logins, calls
  'server.added', 'server.removed', 'server.secret_set', 'server.restart_requested',
  'server.login_started', 'server.login_completed', 'server.baseline',
  'tool.discovered', 'tool.changed', 'tool.auto_approved', 'tool.gone', 'tool.returned', 'tool.call',
  // dashboard operator actions (lib/admin/*): sign-in, server settings, tokens, profiles
  'operator.signed_in', 'operator.signed_out', 'server.configured',
  'token.created', 'token.updated', 'token.revoked',
  'profile.created', 'profile.updated', 'profile.deleted',
  // proxy-wide settings and the activity log's own upkeep
  'settings.changed', 'activity.pruned',
] as const
export type ActivityType = (typeof activityTypes)[number]

/** Surfaces a check can arrive on. */
export const surfaces = ['rest', 'cli', 'dashboard', 'mcp-check', 'mcp-shape-a', 'mcp-shape-b'] as const
export type Surface = (typeof surfaces)[number]
