import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/server'
import { z } from 'zod'
import { jsonObjectSchema } from '@/lib/schemas/json'
import { policySchema } from '@/lib/schemas/preflight'

/**
 * What toolgate's MCP endpoint reads of a client's requests beyond what the SDK checks
 * (lib/mcp), and of the answers it gets back: each method's params, checked where they arrive.
 */

/** tools/resolve's params. */
export const resolveParamsSchema = z.object({ name: z.string(), arguments: jsonObjectSchema.optional() })

/** A request's per-request client capabilities (SEP-2133): the extensions it declares. */
export const envelopeSchema = z.object({
  [CLIENT_CAPABILITIES_META_KEY]: z.object({ extensions: jsonObjectSchema.optional() }).optional(),
})

/** tools/call with a task (lib/mcp/tasks.ts), and the task methods' params (tasks/get and tasks/cancel on both revisions, and 2026-07-28's tasks/update, whose inputResponses the SDK hands apart, as ctx.mcpReq.inputResponses). */
export const taskCallParamsSchema = z.object({
  name: z.string(),
  arguments: jsonObjectSchema.optional(),
  task: z.object({ ttl: z.number().int().nonnegative().optional() }),
})
export const taskIdParamsSchema = z.object({ taskId: z.string() })

/** subscriptions/listen's params: the resources to be told about, and (the Tasks extension) the tasks; _meta carries the request's client capabilities. */
export const listenParamsSchema = z.looseObject({
  notifications: z.looseObject({ resourceSubscriptions: z.array(z.string()).optional(), taskIds: z.array(z.string()).optional() }),
  _meta: z.unknown().optional(),
})

/** 2025-11-25 resources/subscribe's and resources/unsubscribe's params: the resource, by the URI the caller knows it by. */
export const resourceUriParamsSchema = z.looseObject({ uri: z.string() })

/** What a client answered to an elicitation. */
export const elicitResultSchema = z.looseObject({ action: z.enum(['accept', 'decline', 'cancel']), content: jsonObjectSchema.optional() })

/** The levels of logging/setLevel, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
export const setLevelParamsSchema = z.object({ level: z.enum(LOG_LEVELS) })

/** describe_tool's arguments; the faults are the tool errors it answers with. */
export const describeArgsSchema = z.strictObject({
  tool_ids: z.array(
    z.string({ error: 'must be a string' }),
    { error: (iss) => (iss.input === undefined ? 'is required' : 'must be an array of strings') },
  ).min(1, 'must not be empty'),
  check: z.boolean({ error: 'must be a boolean' }).optional(),
  filters: policySchema.optional(),
}, { error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown argument ${(iss.keys ?? []).map((k) => `"${k}"`).join(', ')}` : 'arguments must be an object') })

/** tools/list's cursor, decoded: the (server, tool) key the next page starts after. */
export const toolCursorSchema = z.tuple([z.string(), z.string()])

/** A JSON-RPC error body as an HTTP refusal carries it (what the CLI quotes of the server's words). */
export const rpcErrorBodySchema = z.object({ error: z.object({ message: z.string() }) })
