import http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * An HTTP proxy on 127.0.0.1 between the conformance suite and toolgate's /mcp, so the suite's
 * server scenarios, which call `test_x`, reach the upstream's tool toolgate serves as
 * `<server>:test_x`. It renames in requests (tools/call, prompts/get, completion/complete's
 * prompt ref) and in responses (tools/list, prompts/list, as JSON or SSE), adds the agent token,
 * and passes everything else as it came: every other header (Host, Origin, mcp-session-id
 * included), message and SSE event.
 */
export interface NameShim { url: string; close: () => Promise<void> }

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

export async function startNameShim(target: string, server: string, token: string): Promise<NameShim> {
  const prefix = `${server}:`
  const outward = (name: unknown) => (typeof name === 'string' ? prefix + name : name)
  const inward = (name: unknown) => (typeof name === 'string' && name.startsWith(prefix) ? name.slice(prefix.length) : name)

  /** The client's message with the names it calls mapped to toolgate's; true when one was. */
  function mapRequest(m: unknown): boolean {
    if (!isObject(m) || !isObject(m.params)) return false
    const p = m.params
    if (m.method === 'tools/call' || m.method === 'prompts/get') return (p.name = outward(p.name)), true
    if (m.method === 'completion/complete' && isObject(p.ref) && p.ref.type === 'ref/prompt') return (p.ref.name = outward(p.ref.name)), true
    return false
  }
  /** toolgate's message with listed tool and prompt names mapped back; true when one was. */
  function mapResponse(m: unknown): boolean {
    if (!isObject(m) || !isObject(m.result)) return false
    let mapped = false
    for (const list of [m.result.tools, m.result.prompts]) {
      if (!Array.isArray(list)) continue
      for (const item of list) if (isObject(item)) (item.name = inward(item.name)), (mapped = true)
    }
    return mapped
  }
  /** A JSON-RPC body (one message or a batch) mapped by `map`, or the same bytes when nothing was renamed. */
  function mapBody(body: string, map: (m: unknown) => boolean): string {
    let parsed: unknown
    try {
      parsed = JSON.parse(body)
    } catch {
      return body
    }
    const changed = (Array.isArray(parsed) ? parsed : [parsed]).map(map).some(Boolean)
    return changed ? JSON.stringify(parsed) : body
  }
  /** One SSE event (its lines, without the blank line that ends it), its data mapped when it names tools or prompts. */
  function mapEvent(event: string): string {
    const lines = event.split(/\r?\n/)
    const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(l.startsWith('data: ') ? 6 : 5))
    if (data.length === 0) return event
    const mapped = mapBody(data.join('\n'), mapResponse)
    if (mapped === data.join('\n')) return event
    return [...lines.filter((l) => !l.startsWith('data:')), `data: ${mapped}`].join('\n')
  }

  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      const body = req.method === 'POST' ? Buffer.from(mapBody(raw.toString('utf8'), mapRequest)) : raw
      const headers: http.OutgoingHttpHeaders = { ...req.headers, authorization: `Bearer ${token}` }
      if (headers['content-length'] !== undefined) headers['content-length'] = String(body.length)
      const url = new URL(req.url ?? '/', target)
      const up = http.request(url, { method: req.method, headers }, (upRes) => {
        const type = String(upRes.headers['content-type'] ?? '')
        if (type.includes('text/event-stream')) {
          // streamed event by event: a call's progress, logs and requests to the caller come before its answer
          res.writeHead(upRes.statusCode ?? 502, upRes.headers)
          let pending = ''
          upRes.setEncoding('utf8')
          upRes.on('data', (text: string) => {
            pending += text
            let end: RegExpExecArray | null
            while ((end = /\r?\n\r?\n/.exec(pending))) {
              res.write(mapEvent(pending.slice(0, end.index)) + end[0])
              pending = pending.slice(end.index + end[0].length)
            }
          })
          upRes.on('end', () => res.end(pending))
          upRes.on('error', () => res.destroy())
          return
        }
        const parts: Buffer[] = []
        upRes.on('data', (c: Buffer) => parts.push(c))
        upRes.on('end', () => {
          const answer = Buffer.concat(parts)
          const out = type.includes('application/json') ? Buffer.from(mapBody(answer.toString('utf8'), mapResponse)) : answer
          const outHeaders = { ...upRes.headers }
          if (outHeaders['content-length'] !== undefined) outHeaders['content-length'] = String(out.length)
          res.writeHead(upRes.statusCode ?? 502, outHeaders).end(out)
        })
      })
      up.on('error', (e) => res.writeHead(502).end(String(e)))
      // the client hanging up ends its stream upstream too (the suite reconnects with Last-Event-ID)
      res.on('close', () => up.destroy())
      up.end(body)
    })
  })
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r))
  const { port } = proxy.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise((r) => { proxy.closeAllConnections(); proxy.close(() => r()) }),
  }
}
