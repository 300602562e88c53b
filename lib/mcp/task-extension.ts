import 'server-only'
import { CLIENT_CAPABILITIES_META_KEY, MissingRequiredClientCapabilityError, type CallToolResult, type Server, type ServerContext } from '@modelcontextprotocol/server'
import { envelopeSchema, listenParamsSchema, taskIdParamsSchema } from '@/lib/schemas/mcp'
import { jsonRpcError, type JsonRpcErrorCode } from '@/lib/http/json-rpc'
import { callerKey } from '@/lib/auth/caller'
import type { McpContext } from './context'
import { invalidParams, toProtocolError } from './errors'
import { answerQuestion, cancelTask, POLL_INTERVAL_MS, startTask, TaskError, taskOf, TERMINAL, type Task } from './tasks'

/**
 * The Tasks extension (io.modelcontextprotocol/tasks, SEP-2663) offered to 2026-07-28 clients:
 * the wire of that revision over the task store of lib/mcp/tasks.ts (its gate at creation, its
 * visibility, its limits). A client declares the extension in a request's client capabilities;
 * toolgate then answers that request's tools/call with a task handle (`resultType: "task"`) —
 * unless the call is refused at the gate, or comes from an anonymous caller (nobody could follow
 * it), which are answered plainly, as the server may choose. The client polls with tasks/get
 * (the result, or the JSON-RPC error, inlined once it ends) and cancels with tasks/cancel; the
 * revision has no tasks/result or tasks/list. What the upstream asks during the call (an
 * elicitation, a sampling), the task asks its caller — when the request declared it can answer —
 * as input_required with the question in inputRequests, answered with tasks/update.
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

/** Whether a 2026-07-28 request declares `extension` in its per-request client capabilities (SEP-2133). */
export function declaresExtension(envelope: unknown, extension: string): boolean {
  const parsed = envelopeSchema.safeParse(envelope ?? {})
  return parsed.success && parsed.data[CLIENT_CAPABILITIES_META_KEY]?.extensions?.[extension] !== undefined
}

/** A fault of the task store's (an unknown task, too many unfinished ones) as this revision's -32602. */
const asProtocolError = (e: unknown) => (e instanceof TaskError ? invalidParams(e.message) : e)

/** SEP-2663's Task: its status as that revision names it, and an ended task's result or error inlined. */
function view(t: Task): Record<string, unknown> {
  // a tool error is a completed call (the result says isError); failed is a JSON-RPC error only
  const status = t.status === 'failed' && !t.error ? 'completed' : t.status
  return {
    taskId: t.id, status, ...(t.statusMessage ? { statusMessage: t.statusMessage } : {}),
    createdAt: t.createdAt, lastUpdatedAt: t.lastUpdatedAt, ttlMs: t.ttl, pollIntervalMs: POLL_INTERVAL_MS,
    ...(status === 'completed' && t.result ? { result: t.result } : {}),
    ...(status === 'failed' && t.error ? { error: t.error } : {}),
    ...(status === 'input_required' && t.question ? { inputRequests: { [t.question.key]: t.question.request } } : {}),
  }
}

/**
 * A 2026-07-28 tools/call as a task, when its client declared the extension and has a token to
 * follow it with; undefined otherwise (the call is made plainly). `answers`: what the request's
 * client capabilities say it can answer.
 */
export async function callAsTask(session: McpContext, ctx: ServerContext, name: string, args: Record<string, unknown> | undefined,
  opts: { meta?: Record<string, unknown>; answers: { elicitation: boolean; sampling: boolean } }): Promise<CallToolResult | undefined> {
  if (callerKey(session.caller) === undefined || !declaresExtension(ctx.mcpReq.envelope, TASKS_EXTENSION)) return undefined
  const started = await startTask(session, name, args, opts).catch((e: unknown) => { throw asProtocolError(e) })
  // (a CreateTaskResult goes out as given: resultType "task" passes the SDK's encoding of tools/call)
  return 'task' in started ? { resultType: 'task', ...view(started.task) } as unknown as CallToolResult : started.result
}

/** tasks/get, tasks/update and tasks/cancel, for the session's own tasks. */
export function registerTaskMethods(server: Server, session: McpContext): void {
  const own = (ctx: ServerContext, taskId: string): Task => {
    // SEP-2663: a client that does not declare the extension on the request is told it must
    if (!declaresExtension(ctx.mcpReq.envelope, TASKS_EXTENSION)) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } })
    return taskOf(session, taskId)
  }
  const answer = async <T>(fn: () => T | Promise<T>): Promise<T> => {
    try {
      return await fn()
    } catch (e) {
      throw toProtocolError(asProtocolError(e))
    }
  }
  server.setRequestHandler('tasks/get', { params: taskIdParamsSchema }, (p, ctx) => answer(() => view(own(ctx, p.taskId))))
  server.setRequestHandler('tasks/update', { params: taskIdParamsSchema }, (p, ctx) => answer(() => {
    // acknowledged at once; the task moves on as the answer reaches the upstream
    answerQuestion(own(ctx, p.taskId), ctx.mcpReq.inputResponses as Record<string, unknown> | undefined)
    return {}
  }))
  server.setRequestHandler('tasks/cancel', { params: taskIdParamsSchema }, (p, ctx) => answer(async () => {
    const task = own(ctx, p.taskId)
    // an ended task stays as it ended: the cancellation came too late, which the revision allows
    if (!TERMINAL.has(task.status)) await cancelTask(session, task)
    return {}
  }))
}

/**
 * A subscriptions/listen that names tasks (notifications.taskIds) without declaring the extension
 * is refused, as the extension requires (-32021, naming it); undefined for any other request.
 * toolgate sends no task status on listen streams: a task is followed with tasks/get.
 */
export function undeclaredTaskListen(body: unknown): Response | undefined {
  const msg = body as { id?: unknown; method?: unknown; params?: unknown } | null
  if (msg?.method !== 'subscriptions/listen') return undefined
  const params = listenParamsSchema.safeParse(msg.params)
  if (!params.success || !params.data.notifications.taskIds || declaresExtension(params.data._meta, TASKS_EXTENSION)) return undefined
  const e = new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } })
  return Response.json(jsonRpcError(msg.id, e.code as JsonRpcErrorCode, e.message, e.data))
}
