import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createListener, REQUEST_LIMITS } from '@/lib/http/listener'

/**
 * Issue 22 (Low): slow request bodies were held for 15 minutes. The bound is on RECEIVING the
 * request; what node does with it is checked here on toolgate's own listener, with the limits
 * scaled down (1 s instead of 60 s): a trickled body is cut, a slow answer to a request that
 * arrived at once is not.
 */
const limits = { requestTimeout: 1_000, headersTimeout: 1_000, connectionsCheckingInterval: 100 }
const ANSWER_AFTER_MS = 3_000
let port: number
const server = createListener((req, res) => {
  req.resume()
  req.on('end', () => setTimeout(() => res.writeHead(200).end('late but whole'), ANSWER_AFTER_MS))
}, limits)
beforeAll(() => new Promise<void>((r) => server.listen(0, '127.0.0.1', () => { port = (server.address() as AddressInfo).port; r() })))
afterAll(() => new Promise((r) => { server.closeAllConnections(); server.close(r) }))

/** Send a request head and (part of) a body, and collect what comes back until the server closes. */
function exchange(head: string, body: string): Promise<{ text: string }> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1', () => {
      sock.write(head)
      sock.write(body)
    })
    let text = ''
    sock.on('data', (d) => (text += d))
    sock.on('error', () => undefined)
    sock.on('close', () => resolve({ text }))
  })
}

describe('the time to receive a request is bounded, the time to answer it is not', () => {
  it('toolgate bounds receiving at 60 s at most', () => {
    expect(REQUEST_LIMITS.requestTimeout).toBeLessThanOrEqual(60_000)
    expect(REQUEST_LIMITS.headersTimeout).toBeLessThanOrEqual(REQUEST_LIMITS.requestTimeout)
  })

  it('a body that never completes is answered 408 and the socket closed', async () => {
    // 100 bytes announced, 10 sent, then nothing
    const r = await exchange('POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n', '0123456789')
    expect(r.text).toMatch(/^HTTP\/1\.1 408 /)
  })

  it(`a request that arrived at once gets its answer, though it takes ${ANSWER_AFTER_MS / 1000} s (more than the limit)`, async () => {
    const r = await exchange('POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nConnection: close\r\n\r\n', '0123456789')
    expect(r.text).toMatch(/^HTTP\/1\.1 200 /)
    expect(r.text).toContain('late but whole')
  })
})
