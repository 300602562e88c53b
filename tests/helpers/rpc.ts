/**
 * The JSON-RPC response of one MCP POST, whichever framing the server chose: a JSON body, or an
 * SSE stream (a tools/call streams for clients that accept it), whose response is its last
 * message with an id and a result or error.
 */
export async function rpcBody<T = { result?: Record<string, unknown>; error?: { code: number; message: string } }>(res: Response): Promise<T> {
  const raw = await res.text()
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return JSON.parse(raw) as T
  const messages = raw.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>)
  const response = messages.filter((m) => !('method' in m) && ('result' in m || 'error' in m)).at(-1)
  if (!response) throw new Error(`the event stream carried no JSON-RPC response: ${raw.slice(0, 500)}`)
  return response as T
}
