/** The closed vocabulary of activity types. */
export const activityTypes = [
  'preflight',
  'tool.approved', 'tool.blocked', 'tool.enabled',
  'server.enabled', 'server.disabled', 'server.quarantined', 'server.unquarantined',
  'state.loaded',
] as const
export type ActivityType = (typeof activityTypes)[number]

/** Surfaces a check can arrive on. */
export const surfaces = ['rest', 'cli', 'dashboard', 'mcp-check', 'mcp-shape-a', 'mcp-shape-b'] as const
export type Surface = (typeof surfaces)[number]
