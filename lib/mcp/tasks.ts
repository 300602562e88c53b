import 'server-only'
import { randomBytes } from 'node:crypto'
import { isInputRequiredResult, ProtocolErrorCode, RELATED_TASK_META_KEY, type CallToolResult } from '@modelcontextprotocol/server'
import { taskCallParamsSchema, taskIdParamsSchema } from '@/lib/schemas/mcp'
import { appendActivity } from '@/lib/activity/record'
import { describeError } from '@/lib/core/errors'
import { jsonRpcError, jsonRpcResult } from '@/lib/http/json-rpc'
import { evaluateNow } from '@/lib/gate/check'
import { callerKey } from '@/lib/auth/caller'
import { TERMINAL_TASK_STATES } from '@/lib/upstream/calls'
import { dispatchToolCall } from '@/lib/upstream/dispatch'
import type { AskCaller, ServerAsk } from '@/lib/upstream/calls'
import { CallInProgress } from './ask-caller'
import type { McpContext } from './context'
import { toProtocolError } from './errors'
import { callResult } from './wire'

/**
 * Tasks: a tools/call runs in the background here as a task its caller follows. On 2025-11-25
 * the call asks for one (task-augmented) and is followed with tasks/get, tasks/result, tasks/list
 * and tasks/cancel (answered here); on 2026-07-28 the client declares the Tasks extension and
 * follows the task with that revision's methods (lib/mcp/task-extension.ts), the same task
 * store, gate and visibility underneath. toolgate runs the task
 * itself, so every tool can be called this way; a tool an upstream runs only as a task is run
 * as one upstream by the connection (lib/upstream/calls.ts). The gate applies when the task
 * is created (a refused call is answered as a plain call, at once), and a task is visible only
 * to the caller that created it — the same token, by its id, not its name — and to anyone else
 * its id is unknown. An anonymous caller has no identity to follow a task with: it may not create one.
 */
type Status = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'

export interface Task {
  id: string
  /** the creating token's id (callerKey) */
  caller: string
  tool: string
  status: Status
  statusMessage?: string
  createdAt: string
  lastUpdatedAt: string
  ttl: number
  /** the call's result (a tool error among them: status failed) */
  result?: CallToolResult
  /** the JSON-RPC error the call ended with instead of a result (status failed) */
  error?: { code: number; message: string; data?: unknown }
  /** what the call asks its caller and waits on (input_required), under a key never used again */
  question?: { key: string; request: ServerAsk; answer: (response: unknown) => void }
  /** settles when the call has ended, whatever became of it */
  ended: Promise<void>
  cancel: AbortController
}

const tasks = new Map<string, Task>()
/** How long a finished task's result is kept by default, and at most (clients may ask for less). */
const DEFAULT_TTL_MS = 60 * 60 * 1000
const MAX_TTL_MS = 24 * 60 * 60 * 1000
/** Unfinished tasks one caller may have at once (each holds a call open upstream), and tasks in all. */
const MAX_OPEN_PER_CALLER = 100
const MAX_PER_CALLER = 1_000
export const POLL_INTERVAL_MS = 1_000
export const TERMINAL: ReadonlySet<string> = TERMINAL_TASK_STATES
const now = () => new Date().toISOString()

/** Forget finished tasks whose time to live has run out since they finished. */
function sweep(): void {
  const t = Date.now()
  for (const [id, task] of tasks) if (TERMINAL.has(task.status) && Date.parse(task.lastUpdatedAt) + task.ttl < t) tasks.delete(id)
}

/** Room for one more task of this caller: the oldest finished ones give way; unfinished ones never do. */
function makeRoom(caller: string): void {
  sweep()
  const own = [...tasks.values()].filter((t) => t.caller === caller) // insertion order: oldest first
  const open = own.filter((t) => !TERMINAL.has(t.status)).length
  if (open >= MAX_OPEN_PER_CALLER) throw new TaskError(`too many unfinished tasks (${open}): wait for some to finish, or cancel them with tasks/cancel`)
  for (const t of own.filter((x) => TERMINAL.has(x.status)).slice(0, Math.max(0, own.length + 1 - MAX_PER_CALLER))) tasks.delete(t.id)
}

const view = (t: Task) => ({
  taskId: t.id, status: t.status, ...(t.statusMessage ? { statusMessage: t.statusMessage } : {}),
  createdAt: t.createdAt, lastUpdatedAt: t.lastUpdatedAt, ttl: t.ttl, pollInterval: POLL_INTERVAL_MS,
})

function update(t: Task, status: Status, statusMessage?: string): void {
  if (TERMINAL.has(t.status)) return // a terminal status never changes (a cancel wins over a late result)
  t.status = status
  if (statusMessage !== undefined) t.statusMessage = statusMessage
  t.lastUpdatedAt = now()
}

export class TaskError extends Error {}
const unknownTask = (id: unknown) => new TaskError(`unknown task ${JSON.stringify(id)}: no such task was created by this caller (or its time to live ran out)`)

/** The caller's own task by its id; any other is unknown. */
export function taskOf(session: McpContext, id: unknown): Task {
  const task = typeof id === 'string' ? tasks.get(id) : undefined
  // another caller's task is as unknown as a made-up id: its existence is not theirs to learn
  if (!task || task.caller !== callerKey(session.caller)) throw unknownTask(id)
  return task
}

/** Runs the task's call, with `ask` as its way to the caller (none: questions are declined) and `signal` also stopping it. */
type Run = (ask?: AskCaller, signal?: AbortSignal) => Promise<CallToolResult | undefined>

/**
 * A task whose caller can answer questions (2026-07-28): what the call asks is the task's
 * question (input_required) until the caller answers it (tasks/update) — the same questions, and
 * checks of the answers, as a plain call's input_required (CallInProgress), with the task in
 * place of the retry. A question nobody answers in time ends the call, as it does there.
 */
async function askingRun(task: Task, declared: { elicitation: boolean; sampling: boolean }, run: Run): Promise<CallToolResult | undefined> {
  // unparked: no plain call's retry can take a step of the task's call
  const call = new CallInProgress(task.caller, 'tools/call', declared, false)
  // (the end wrapped: a Result, as a leg hands it back)
  call.finish(run(call.ask, call.cancel.signal).then((result) => ({ result })))
  // the task is followed by polling, not over a connection: no leg is left
  const stays = new AbortController().signal
  // cancelled, or nobody answered in time: no answer will come
  const gone = AbortSignal.any([task.cancel.signal, call.cancel.signal])
  for (let step = await call.leg(stays); ;) {
    if (!isInputRequiredResult(step)) return (step as { result?: CallToolResult }).result
    const request = step.inputRequests?.ask as ServerAsk
    const response = await new Promise<unknown>((resolve) => {
      const none = () => resolve(undefined)
      gone.addEventListener('abort', none, { once: true })
      task.question = { key: String(step.requestState), request, answer: (r) => { gone.removeEventListener('abort', none); resolve(r) } }
      update(task, 'input_required', 'waiting for the caller\'s answer')
    })
    task.question = undefined
    if (call.cancel.signal.aborted) update(task, 'cancelled', 'nobody answered the task\'s question in time')
    else update(task, 'working', 'the caller answered')
    step = await call.resume(response === undefined ? undefined : { ask: response }, stays)
  }
}

/** The caller's answers (tasks/update) to the task's open question; answers to any other key are ignored. */
export function answerQuestion(task: Task, responses: Record<string, unknown> | undefined): void {
  const q = task.question
  if (q && responses && Object.hasOwn(responses, q.key)) q.answer(responses[q.key])
}

/**
 * A tools/call as a task: the gate now — a refused (or unknown) tool is answered as the plain
 * call, at once — then the call in the background. `ttl`: the caller's wish (capped); `meta`:
 * the request _meta the upstream gets; `answers`: what the caller's client can answer, when
 * the task may ask it (2026-07-28; otherwise what the upstream asks is declined).
 */
export async function startTask(session: McpContext, name: string, args: Record<string, unknown> | undefined, opts: { ttl?: number; meta?: Record<string, unknown>; answers?: { elicitation: boolean; sampling: boolean } } = {}): Promise<{ task: Task } | { result: CallToolResult }> {
  const owner = callerKey(session.caller)
  if (owner === undefined) throw new TaskError('a task needs an agent token: an anonymous caller is a new caller on every request, so nobody could follow the task (call without task, or send Authorization: Bearer <agent token>)')
  const ctx = { db: session.db, caller: session.caller, profile: session.profile, requestId: session.requestId }
  // refused (or unknown) at creation: answered as the plain call, with the same verdict and record
  if (evaluateNow(session.db, session.caller, { ids: [name], profile: session.profile }).tools[0].status !== 'ready') {
    return { result: callResult(name, await dispatchToolCall(ctx, name, args), owner) }
  }
  makeRoom(owner)
  const at = now()
  const task: Task = {
    id: `tgt_${randomBytes(12).toString('base64url')}`, caller: owner, tool: name, status: 'working',
    createdAt: at, lastUpdatedAt: at, ttl: Math.min(opts.ttl ?? DEFAULT_TTL_MS, MAX_TTL_MS),
    ended: Promise.resolve(), cancel: new AbortController(),
  }
  // counted at once (concurrent creations see it), on the record before the caller learns the id
  tasks.set(task.id, task)
  try {
    await appendActivity(session.db, {
      requestId: session.requestId, type: 'task.created', actor: session.caller.name, tier: session.caller.tier, server: name.slice(0, name.indexOf(':')),
      data: { target: name, task_id: task.id, ttl_ms: task.ttl },
    })
  } catch (e) {
    tasks.delete(task.id)
    throw e
  }
  const run: Run = (ask, signal) => dispatchToolCall({
    ...ctx, taskId: task.id, signals: [task.cancel.signal, signal], meta: opts.meta, ask,
    // what the upstream reports as progress is the task's status message
    progress: (pr) => update(task, 'working', pr.message ?? `progress ${pr.progress}${pr.total ? ` of ${pr.total}` : ''}`),
  }, name, args).then((outcome) => (outcome.kind === 'cancelled' ? undefined : callResult(name, outcome, owner)))
  const answers = opts.answers
  task.ended = (answers && (answers.elicitation || answers.sampling) ? askingRun(task, answers, run) : run()).then((result) => {
    if (result) task.result = result
    update(task, result?.isError ? 'failed' : 'completed')
  }).catch((e: unknown) => {
    // the call failed, or its outcome could not be worded (the tool vanished after the gate):
    // the error a plain call would have answered, and (2025-11-25's tasks/result) as a tool error
    const { code, message, data } = toProtocolError(e)
    task.error = { code, message, ...(data !== undefined ? { data } : {}) }
    task.result = { isError: true, content: [{ type: 'text', text: `the call failed: ${describeError(e)}` }] }
    update(task, 'failed', describeError(e))
  })
  return { task }
}

/** 2025-11-25's task-augmented tools/call: its params, then the task (or the plain answer of a refused call). */
async function createTask(session: McpContext, params: unknown): Promise<unknown> {
  const p = taskCallParamsSchema.safeParse(params)
  if (!p.success) throw new TaskError(`invalid params: ${p.error.issues.map((i) => `${i.path.join('.') || 'params'}: ${i.message}`).join('; ')}`)
  const started = await startTask(session, p.data.name, p.data.arguments, { ttl: p.data.task.ttl })
  return 'task' in started ? { task: view(started.task) } : started.result
}

/** tasks/result: waits for the end (or for the caller to leave), then the call's result. */
async function taskResult(session: McpContext, task: Task): Promise<unknown> {
  if (!TERMINAL.has(task.status)) {
    const left = session.closed
    await Promise.race([task.ended, ...(left ? [new Promise((r) => left.addEventListener('abort', r, { once: true }))] : [])])
  }
  const result = task.result ?? { isError: true, content: [{ type: 'text', text: task.status === 'cancelled' ? 'the task was cancelled' : 'the task has no result' }] }
  return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId: task.id } } }
}

/** An unfinished task cancelled: its call cancelled upstream, on the record. */
export async function cancelTask(session: McpContext, task: Task): Promise<void> {
  update(task, 'cancelled', 'cancelled by the caller')
  task.cancel.abort()
  await appendActivity(session.db, {
    requestId: session.requestId, type: 'task.cancelled', actor: session.caller.name, tier: session.caller.tier, server: task.tool.slice(0, task.tool.indexOf(':')),
    data: { target: task.tool, task_id: task.id },
  })
}

/** Whether a 2025-11-25 request is about tasks: task-augmented tools/call, or tasks/*. */
export function isTaskRequest(body: unknown): boolean {
  const msg = body as { method?: unknown; params?: { task?: unknown } } | null
  return (msg?.method === 'tools/call' && msg.params?.task !== undefined) || (typeof msg?.method === 'string' && msg.method.startsWith('tasks/'))
}

/** One tasks exchange, answered as JSON-RPC. */
export async function answerTask(session: McpContext, body: unknown): Promise<Response> {
  const msg = body as { id?: unknown; method: string; params?: unknown }
  const reply = (body: object) => Response.json(body, { headers: { 'cache-control': 'no-store' } })
  try {
    const id = () => {
      const p = taskIdParamsSchema.safeParse(msg.params)
      if (!p.success) throw new TaskError('invalid params: taskId must be a string')
      return taskOf(session, p.data.taskId)
    }
    let result: unknown
    switch (msg.method) {
      case 'tools/call': result = await createTask(session, msg.params); break
      case 'tasks/get': result = view(id()); break
      case 'tasks/result': result = await taskResult(session, id()); break
      case 'tasks/cancel': {
        const task = id()
        if (TERMINAL.has(task.status)) throw new TaskError(`task ${task.id} is already ${task.status}: only an unfinished task can be cancelled`)
        await cancelTask(session, task)
        result = view(task)
        break
      }
      case 'tasks/list':
        sweep()
        result = { tasks: [...tasks.values()].filter((t) => t.caller === callerKey(session.caller)).map(view) }
        break
      default: return reply(jsonRpcError(msg.id, ProtocolErrorCode.MethodNotFound, `Method not found: ${msg.method}`))
    }
    return reply(jsonRpcResult(msg.id, result))
  } catch (e) {
    if (e instanceof TaskError) return reply(jsonRpcError(msg.id, ProtocolErrorCode.InvalidParams, e.message))
    const err = toProtocolError(e)
    return reply(jsonRpcError(msg.id, err.code, err.message, err.data))
  }
}
