import type { Attributes } from '@opentelemetry/api'

/**
 * The names toolgate's telemetry uses. MCP's come from OpenTelemetry's semantic conventions for
 * MCP (semantic-conventions-genai, docs/gen-ai/mcp.md; development status), copied rather than
 * imported from the package's incubating entry, which may rename them in a minor release
 * (tests/telemetry/names.test.ts holds them to the pinned package). toolgate's own are `toolgate.*`.
 */
export const ATTR = {
  MCP_METHOD_NAME: 'mcp.method.name',
  MCP_PROTOCOL_VERSION: 'mcp.protocol.version',
  MCP_SESSION_ID: 'mcp.session.id',
  MCP_RESOURCE_URI: 'mcp.resource.uri',
  GEN_AI_TOOL_NAME: 'gen_ai.tool.name',
  GEN_AI_PROMPT_NAME: 'gen_ai.prompt.name',
  GEN_AI_OPERATION_NAME: 'gen_ai.operation.name',
  GEN_AI_AGENT_NAME: 'gen_ai.agent.name',
  GEN_AI_TOOL_CALL_ARGUMENTS: 'gen_ai.tool.call.arguments',
  GEN_AI_TOOL_CALL_RESULT: 'gen_ai.tool.call.result',
  JSONRPC_REQUEST_ID: 'jsonrpc.request.id',
  RPC_RESPONSE_STATUS_CODE: 'rpc.response.status_code',
  ERROR_TYPE: 'error.type',
  NETWORK_TRANSPORT: 'network.transport',
  NETWORK_PROTOCOL_NAME: 'network.protocol.name',
  NETWORK_PROTOCOL_VERSION: 'network.protocol.version',
  SERVER_ADDRESS: 'server.address',
  SERVER_PORT: 'server.port',
  CLIENT_ADDRESS: 'client.address',
  CLIENT_PORT: 'client.port',
  HTTP_REQUEST_METHOD: 'http.request.method',
  HTTP_RESPONSE_STATUS_CODE: 'http.response.status_code',
  HTTP_ROUTE: 'http.route',
} as const

/** toolgate's own facts, on spans and metrics. */
export const TOOLGATE = {
  REQUEST_ID: 'toolgate.request_id',
  VERDICT: 'toolgate.verdict',
  REASON: 'toolgate.reason',
  SURFACE: 'toolgate.surface',
  SERVER: 'toolgate.server',
  PROFILE: 'toolgate.profile',
  CALLER_TIER: 'toolgate.caller.tier',
  CALL_ID: 'toolgate.call.id',
  CALL_DECISION: 'toolgate.call.decision',
  ACTION: 'toolgate.action',
  STATE: 'toolgate.state',
  APPROVAL_STATUS: 'toolgate.approval.status',
  PRUNED: 'toolgate.pruned',
} as const

export const EXECUTE_TOOL = 'execute_tool'

/**
 * The attributes one MCP operation has on either side (toolgate serving, toolgate calling an
 * upstream), added to `attrs`: the method, the revision when known, and the tool (an
 * execute_tool operation) or prompt it names.
 */
export function withOperation(attrs: Attributes, method: string, target: string | undefined, version: string | undefined): Attributes {
  attrs[ATTR.MCP_METHOD_NAME] = method
  if (version) attrs[ATTR.MCP_PROTOCOL_VERSION] = version
  if (target && method === 'tools/call') {
    attrs[ATTR.GEN_AI_TOOL_NAME] = target
    attrs[ATTR.GEN_AI_OPERATION_NAME] = EXECUTE_TOOL
  } else if (target && method === 'prompts/get') attrs[ATTR.GEN_AI_PROMPT_NAME] = target
  return attrs
}
/** error.type of a tools/call whose result has isError (the conventions' value) */
export const TOOL_ERROR = 'tool_error'

export const METRIC = {
  SERVER_DURATION: 'mcp.server.operation.duration',
  CLIENT_DURATION: 'mcp.client.operation.duration',
  CHECKS: 'toolgate.checks',
  HELD_CALLS_PENDING: 'toolgate.held_calls.pending',
  TOOLS_AWAITING_APPROVAL: 'toolgate.tools.awaiting_approval',
  UPSTREAM_STATE: 'toolgate.upstream.state',
  ACTIVITY_BATCH_SIZE: 'toolgate.activity.commit.batch_size',
  ACTIVITY_COMMIT_DURATION: 'toolgate.activity.commit.duration',
  ACTIVITY_PRUNED: 'toolgate.activity.pruned',
} as const

/** The conventions' ExplicitBucketBoundaries for both MCP operation-duration histograms, in seconds. */
export const MCP_DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]
