// A lean HTTP client for the load sections: node:http on keep-alive sockets. fetch (undici) costs
// the load generator so much CPU that, sharing this machine's two cores with the server, it
// could not drive even the bare floor past ~3,300 requests/s: it measured itself.
import http from 'node:http'

const agent = new http.Agent({ keepAlive: true })

export interface Answer { status: number; headers: http.IncomingHttpHeaders; text: string }

/** POST a JSON body; resolves with the status, the headers and the body as text. */
export function post(url: URL, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
    }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** POST a JSON body; resolves with the status and the parsed JSON answer. */
export async function postJson(url: URL, body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown }> {
  const res = await post(url, body, headers)
  return { status: res.status, json: JSON.parse(res.text) }
}

/** A JSON-RPC answer over Streamable HTTP: one JSON body, or the message carrying the response in an SSE stream. */
export function jsonRpcAnswer(res: Answer): { result?: unknown; error?: { message: string } } {
  if (!String(res.headers['content-type'] ?? '').includes('text/event-stream')) return JSON.parse(res.text)
  for (const line of res.text.split('\n')) {
    if (!line.startsWith('data: ')) continue
    const msg = JSON.parse(line.slice(6))
    if ('result' in msg || 'error' in msg) return msg
  }
  throw new Error(`no JSON-RPC response in the stream: ${res.text.slice(0, 200)}`)
}
