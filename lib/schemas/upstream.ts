import { z } from 'zod'
import { jsonObjectSchema } from '@/lib/schemas/json'

/**
 * What toolgate reads of an upstream's answers (lib/upstream): only what it relies on is
 * checked, and every other field is kept as the server sent it.
 */

/** A result as the server sent it, every field kept. */
export const RAW_RESULT = z.looseObject({})

/** A task as an upstream reports it (tasks/get, and tools/call with a task) */
export const upstreamTaskSchema = z.looseObject({ taskId: z.string(), status: z.string(), statusMessage: z.string().optional(), pollInterval: z.number().optional() })
/** tools/call with a task: the task it created */
export const createdTaskSchema = z.looseObject({ task: upstreamTaskSchema })

/**
 * A task of the Tasks extension (io.modelcontextprotocol/tasks, 2026-07-28) as tasks/get reports
 * it: its outcome inline — the result once completed, the JSON-RPC error once failed, what it
 * asks while input_required.
 */
export const detailedTaskSchema = z.looseObject({
  taskId: z.string(),
  status: z.string(),
  statusMessage: z.string().optional(),
  pollIntervalMs: z.number().optional(),
  result: z.looseObject({}).optional(),
  error: z.looseObject({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
  inputRequests: z.record(z.string(), z.looseObject({ method: z.string().optional(), params: z.looseObject({}).optional() })).optional(),
})

/**
 * tools/list as the upstream sent it. The SDK's own listTools parses tools with a schema that
 * drops fields it does not know; toolgate stores and serves every field as given, so it reads
 * the raw page and checks only what it relies on.
 */
export const rawToolsPageSchema = z.looseObject({
  tools: z.array(z.looseObject({
    name: z.string().min(1),
    title: z.string().optional(),
    description: z.string().optional(),
    inputSchema: jsonObjectSchema,
    outputSchema: jsonObjectSchema.optional(),
    annotations: jsonObjectSchema.optional(),
    execution: jsonObjectSchema.optional(),
    icons: z.array(z.unknown()).optional(),
    _meta: jsonObjectSchema.optional(),
  })),
  nextCursor: z.string().optional(),
})

/** Any other listing's page: only its cursor is read here. */
export const rawPageSchema = z.looseObject({ nextCursor: z.string().optional() })
