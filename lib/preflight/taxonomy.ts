/**
 * The reason taxonomy: ONE literal table, the single source of truth that every surface,
 * the docs and the tests read (contract §2). Remediation text is built here so every
 * surface words the fix the same way.
 */
export const actions = ['login', 'restart', 'enable', 'approve', 'view_logs', 'set_secret', 'configure'] as const
export type Action = (typeof actions)[number]

export const verdicts = ['ready', 'degraded_retryable', 'blocked', 'unknown_ids'] as const
export type Verdict = (typeof verdicts)[number]

export type ReasonClass = 'retryable' | 'fix-state' | 'permanent'

/** What a remediation may name: the id, its halves, and (server_unhealthy) the diagnosed action. */
export interface RemediationCtx { id: string; server: string; tool: string; action?: Action }

interface ReasonSpec {
  class: ReasonClass
  retryable: boolean
  /** default action; undefined = no action (the field is omitted on the wire) */
  action?: Action
  verdict: Exclude<Verdict, 'ready'>
  remediation: (c: RemediationCtx) => string
}

export const taxonomy = {
  server_initializing: {
    class: 'retryable', retryable: true, verdict: 'degraded_retryable',
    remediation: () => 'Retry shortly, or wait with wait_ms / --wait.',
  },
  server_unhealthy: {
    // the runtime's diagnosis may name a better action than reading logs; the fix follows it
    class: 'retryable', retryable: true, action: 'view_logs', verdict: 'degraded_retryable',
    remediation: (c) => {
      switch (c.action) {
        case 'restart': return `Restart the server: toolgate upstream restart ${c.server}`
        case 'login': return `Complete login: toolgate upstream login ${c.server}`
        case 'set_secret': return `Set the secret: toolgate upstream set-secret ${c.server} <NAME>`
        case 'configure': return `Give it a transport: toolgate upstream remove ${c.server}, then toolgate upstream add ${c.server} --command <program> (or --url <https://…/mcp>)`
        default: return `Read its logs: toolgate upstream logs ${c.server}`
      }
    },
  },
  server_disabled: {
    class: 'fix-state', retryable: false, action: 'enable', verdict: 'blocked',
    remediation: (c) => `Enable the server: toolgate upstream enable ${c.server}`,
  },
  server_quarantined: {
    class: 'fix-state', retryable: false, action: 'approve', verdict: 'blocked',
    remediation: (c) => `After review: toolgate upstream unquarantine ${c.server}`,
  },
  tool_pending_approval: {
    class: 'fix-state', retryable: false, action: 'approve', verdict: 'blocked',
    remediation: (c) => `Review and approve: toolgate tools approve ${c.id}`,
  },
  tool_changed: {
    class: 'fix-state', retryable: false, action: 'approve', verdict: 'blocked',
    remediation: (c) => `Review the change, then: toolgate tools approve ${c.id}`,
  },
  tool_blocked_by_user: {
    class: 'fix-state', retryable: false, action: 'enable', verdict: 'blocked',
    remediation: (c) => `Unblock the tool: toolgate tools enable ${c.id}`,
  },
  oauth_required: {
    class: 'fix-state', retryable: false, action: 'login', verdict: 'blocked',
    remediation: (c) => `Complete login: toolgate upstream login ${c.server}`,
  },
  hash_mismatch: {
    class: 'fix-state', retryable: false, action: 'configure', verdict: 'blocked',
    remediation: () => 'Review the tool, then pin its current hash (toolgate tools list -o json).',
  },
  server_not_in_scope: {
    class: 'permanent', retryable: false, action: 'configure', verdict: 'blocked',
    remediation: (c) => `Use a token and profile that include server "${c.server}".`,
  },
  tool_denied_by_config: {
    class: 'permanent', retryable: false, action: 'configure', verdict: 'blocked',
    remediation: () => 'Allow it in the server\'s disabled_tools / enabled_tools.',
  },
  missing_annotation: {
    class: 'permanent', retryable: false, action: 'configure', verdict: 'blocked',
    remediation: () => 'Drop the filter, or use a tool that declares it.',
  },
  policy_filtered: {
    class: 'permanent', retryable: false, verdict: 'blocked',
    remediation: () => 'Drop the filter, or use another tool.',
  },
  not_found: {
    class: 'permanent', retryable: false, action: 'configure', verdict: 'unknown_ids',
    remediation: () => 'Check the id against tools/list.',
  },
  server_not_configured: {
    class: 'permanent', retryable: false, action: 'configure', verdict: 'unknown_ids',
    remediation: (c) => `Add it: toolgate upstream add ${c.server} ..., or fix the id.`,
  },
} as const satisfies Record<string, ReasonSpec>

export type Reason = keyof typeof taxonomy

/**
 * Precedence (contract §3): for one id, the first condition that holds in this order owns the
 * verdict. The two annotation filters share the last slot, in the order the policy names them.
 */
export const precedence = [
  'server_not_configured', 'server_not_in_scope', 'server_quarantined', 'server_disabled',
  'not_found', 'tool_denied_by_config', 'tool_blocked_by_user', 'tool_changed',
  'tool_pending_approval', 'hash_mismatch', 'oauth_required', 'server_unhealthy',
  'server_initializing', 'missing_annotation', 'policy_filtered',
] as const satisfies readonly Reason[]
/** The table viewed through its row type, for lookups by a reason variable. */
export const reasonSpec: Record<Reason, ReasonSpec> = taxonomy
export const reasons = Object.keys(taxonomy) as Reason[]
/** Each reason's class: a check is counted under its refused tools' classes too (db/queries/activity-index.ts checkClasses). */
export const reasonVerdicts = Object.fromEntries(reasons.map((r) => [r, reasonSpec[r].verdict])) as Record<Reason, Verdict>

/** Worst class wins: unknown_ids > blocked > degraded_retryable > ready. */
const verdictRank: Record<Verdict, number> = { ready: 0, degraded_retryable: 1, blocked: 2, unknown_ids: 3 }
export const exitCodes: Record<Verdict, number> = { ready: 0, degraded_retryable: 10, blocked: 11, unknown_ids: 12 }

export function worstVerdict(vs: Iterable<Verdict>): Verdict {
  let worst: Verdict = 'ready'
  for (const v of vs) if (verdictRank[v] > verdictRank[worst]) worst = v
  return worst
}
