import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client'

/**
 * The Tasks extension (io.modelcontextprotocol/tasks, 2026-07-28) lets a server answer tools/call
 * with a task handle (`resultType: "task"`) to be polled with tasks/get. The SDK's client refuses
 * that result kind before anyone sees it (UnsupportedResultType, without the handle), so it is
 * taken off the response as it arrives: the SDK is handed a complete result that carries the
 * handle under TASK_HANDLE, and calls.ts follows the task.
 */
export const TASK_HANDLE = 'toolgate/taskHandle'

/** `transport`, its incoming task handles made readable (see above). */
export function acceptTaskHandles<T extends Transport>(transport: T): T {
  let handler: Transport['onmessage']
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set: (h: Transport['onmessage']) => { handler = h && ((message, extra) => h(liftTaskHandle(message), extra)) },
  })
  return transport
}

function liftTaskHandle(message: JSONRPCMessage): JSONRPCMessage {
  const result = (message as { result?: Record<string, unknown> }).result
  if (result?.resultType !== 'task') return message
  const { resultType: _task, _meta, ...task } = result
  return { ...message, result: { resultType: 'complete', content: [], ...(_meta !== undefined ? { _meta } : {}), [TASK_HANDLE]: task } } as JSONRPCMessage
}
