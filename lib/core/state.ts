// the ground floor's enums and shapes: db/schema stores them, the evaluator reads them
export const connectionStates = [
  'ready', 'connecting', 'discovering', 'authenticating', 'pending_auth', 'error', 'disconnected',
] as const
export type ConnectionState = (typeof connectionStates)[number]

export const connectionActions = ['restart', 'login', 'view_logs', 'set_secret'] as const
export type ConnectionAction = (typeof connectionActions)[number]

export interface ToolAnnotations {
  readOnlyHint?: boolean
  destructiveHint?: boolean
  openWorldHint?: boolean
  idempotentHint?: boolean
  title?: string
  [key: string]: unknown
}

/**
 * The narrow, read-only view of proxy state the evaluator may consult. Nothing reachable
 * from here can connect, write or re-index: "zero upstream I/O" is structural.
 * One instance lives for one request, inside one read transaction (one snapshot).
 */
export interface ServerView {
  name: string
  enabled: boolean
  quarantined: boolean
  trust: 'manual' | 'auto'
  disabledTools: readonly string[]
  enabledTools: readonly string[] | null
  /** a command or URL the runtime connects; false for a state-file server, which nothing stands behind */
  hasTransport: boolean
}

export interface ConnectionView {
  state: ConnectionState
  detail: string | null
  action: ConnectionAction | null
}

export interface ApprovalView {
  status: 'approved' | 'pending' | 'changed'
  disabled: boolean
}

export interface ToolView {
  name: string
  annotations: ToolAnnotations | null
  hash: string | null
  approval: ApprovalView | null
}

export interface PreflightState {
  quarantineEnabled(): boolean
  /** read these ids' servers, connections and tools at once (lookups of them then cost nothing) */
  prefetch(ids: readonly { server: string; tool: string }[]): void
  server(name: string): ServerView | undefined
  connection(server: string): ConnectionView | undefined
  tool(server: string, name: string): ToolView | undefined
  /** servers of a profile; undefined when no such profile exists */
  profileServers(name: string): readonly string[] | undefined
  /** known tool ids (on `servers` only, when given) whose full id is a prefix of `id`, has `id` as prefix, or differs in length by ≤ 2 */
  nearbyToolIds(id: string, servers?: readonly string[]): readonly { server: string; tool: string }[]
}

/** The exclusions a check may ask for: read by the evaluator, kept in the check's record. */
export interface Policy {
  read_only_only?: boolean
  exclude_destructive?: boolean
  exclude_open_world?: boolean
}
