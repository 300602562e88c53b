import { randomUUID } from 'node:crypto'
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client'

/**
 * The Tasks extension (io.modelcontextprotocol/tasks, 2026-07-28) lets a server answer tools/call
 * with a task handle (`resultType: "task"`) to be polled with tasks/get. The SDK's client refuses
 * that result kind before anyone sees it (UnsupportedResultType, without the handle), so it is
 * taken off the response to a tools/call as it arrives: the SDK is handed a complete result that
 * carries the handle under TASK_HANDLE, and calls.ts follows the task. A task answering any other
 * request is left for the SDK to refuse.
 */
// random per process: no result an upstream writes can carry it, so none can pose as a task
export const TASK_HANDLE = `toolgate/taskHandle/${randomUUID()}`

/** `transport`, the task handles answering its tools/call requests made readable (see above). */
export function acceptTaskHandles<T extends Transport>(transport: T): T {
  // the ids of the tools/call requests sent and not yet answered
  const calls = new Set<string | number>()
  const send = transport.send.bind(transport)
  transport.send = (message, options) => {
    if ('method' in message) {
      if (message.method === 'tools/call' && 'id' in message) calls.add(message.id)
      // a call given up on is answered never, or ignored
      else if (message.method === 'notifications/cancelled') calls.delete((message.params as { requestId?: string | number } | undefined)?.requestId ?? '')
    }
    return send(message, options)
  }
  let handler: Transport['onmessage']
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set: (h: Transport['onmessage']) => {
      handler = h && ((message, extra) => {
        // a response (result or error) ends its request; only a tools/call's result may be a task
        const answered = !('method' in message) && 'id' in message && message.id != null && calls.delete(message.id)
        h(answered && 'result' in message ? liftTaskHandle(message) : message, extra)
      })
    },
  })
  return transport
}

function liftTaskHandle(message: JSONRPCMessage): JSONRPCMessage {
  const result = (message as { result?: Record<string, unknown> }).result
  if (result?.resultType !== 'task') return message
  const { resultType: _task, _meta, ...task } = result
  return { ...message, result: { resultType: 'complete', content: [], ...(_meta !== undefined ? { _meta } : {}), [TASK_HANDLE]: task } } as JSONRPCMessage
}
