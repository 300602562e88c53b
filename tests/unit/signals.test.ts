import { getEventListeners } from 'node:events'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { following, releasingFetch } from '@/lib/signals'

it('aborts when any parent aborts, with that parent\'s reason', () => {
  const [a, b] = [new AbortController(), new AbortController()]
  const { controller } = following(a.signal, undefined, b.signal)
  expect(controller.signal.aborted).toBe(false)
  b.abort('gone')
  expect(controller.signal.aborted).toBe(true)
  expect(controller.signal.reason).toBe('gone')
  a.abort('later') // a second parent changes nothing
  expect(controller.signal.reason).toBe('gone')
})

it('starts aborted when a parent already is, and can be aborted on its own', () => {
  const a = new AbortController()
  a.abort('before')
  expect(following(a.signal).controller.signal.reason).toBe('before')
  const own = following(new AbortController().signal).controller
  own.abort()
  expect(own.signal.aborted).toBe(true)
})

it('stops following once released: a parent aborting later leaves it alone', () => {
  const a = new AbortController()
  const { controller, release } = following(a.signal)
  release()
  a.abort()
  expect(controller.signal.aborted).toBe(false)
})

// /json answers at once; /stream sends one chunk, then holds the response open
let server: http.Server
let base: string
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/stream') return void res.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: 1\n\n')
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => {
  server.closeAllConnections()
  server.close()
})

it('leaves no listener on a long-lived signal once each response is over (read, cancelled, or failed)', async () => {
  const shared = new AbortController()
  const f = releasingFetch(fetch)
  for (let i = 0; i < 50; i++) expect(await (await f(`${base}/json`, { signal: shared.signal })).json()).toEqual({ ok: true })
  await (await f(`${base}/stream`, { signal: shared.signal })).body!.cancel()
  await expect(f('http://127.0.0.1:1/', { signal: shared.signal })).rejects.toThrow()
  expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0)
})

it('still ends a response mid-stream when the signal it was given aborts', async () => {
  const shared = new AbortController()
  const res = await releasingFetch(fetch)(`${base}/stream`, { signal: shared.signal })
  const reader = res.body!.getReader()
  expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: 1\n\n')
  const next = reader.read()
  shared.abort()
  await expect(next).rejects.toThrow()
  expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0)
})
