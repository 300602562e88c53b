// the ground floor's enums and shapes: db/schema stores them, the evaluator reads them
export const connectionStates = [
  'ready', 'connecting', 'discovering', 'authenticating', 'pending_auth', 'error', 'disconnected',
] as const
export type ConnectionState = (typeof connectionStates)[number]

export const connectionActions = ['restart', 'login', 'view_logs', 'set_secret'] as const
export type ConnectionAction = (typeof connectionActions)[number]

/** A server's trust: manual (every tool change waits for review) or auto (its changes are approved as they come). */
export const trusts = ['manual', 'auto'] as const
export type Trust = (typeof trusts)[number]

/** A decided tool's or definition's approval. */
export const approvalStatuses = ['approved', 'pending', 'changed'] as const
export type ApprovalStatus = (typeof approvalStatuses)[number]

/** Who shares one upstream session: every agent, or each agent token its own; auto decides by the server. */
export const isolations = ['auto', 'shared', 'per_token'] as const
export type Isolation = (typeof isolations)[number]

/** Whether a server's sampling requests (a completion by the caller's model) are put to the caller, or refused unasked and the capability not declared to it. */
export const samplingSettings = ['relay', 'withhold'] as const
export type Sampling = (typeof samplingSettings)[number]

/**
 * The isolation that runs: as set, or for auto — per_token on HTTP (a session per token costs a
 * connection, not a process), and on stdio when the server declares session state (one process
 * per token is worth it only where a session holds something).
 */
export function isolationRuns(setting: Isolation, http: boolean, declaresSessionState: boolean | null): 'shared' | 'per_token' {
  if (setting !== 'auto') return setting
  return http || declaresSessionState ? 'per_token' : 'shared'
}

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
  trust: Trust
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
  status: ApprovalStatus
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
  /** the server's connection as `tokenId` has it: its own upstream session, where that is down, else the server's */
  connection(server: string, tokenId?: string): ConnectionView | undefined
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
