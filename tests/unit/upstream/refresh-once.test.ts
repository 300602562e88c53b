import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { refreshOnce } from '@/lib/upstream/refresh-once'

// A token endpoint that rotates refresh tokens, as OAuth 2.1 asks: each refresh token works once.
let server: http.Server
let url = ''
const seen: string[] = []
let valid = new Set(['r0', 'r1'])
beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      const p = new URLSearchParams(body)
      seen.push(`${p.get('grant_type')} ${p.get('refresh_token') ?? p.get('code')}`)
      const token = p.get('refresh_token') ?? ''
      // answered a little later, so the other asks arrive while the first is under way
      setTimeout(() => {
        res.writeHead(p.get('grant_type') === 'refresh_token' && !valid.delete(token) ? 400 : 200, { 'content-type': 'application/json' })
        res.end(JSON.stringify(res.statusCode === 200 ? { access_token: `a-${seen.length}`, token_type: 'Bearer' } : { error: 'invalid_grant' }))
      }, 50)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

const ask = (f: typeof fetch, grant: string, token: string) => f(url, {
  method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(grant === 'refresh_token' ? { grant_type: grant, refresh_token: token } : { grant_type: grant, code: token }),
})

describe('refreshOnce', () => {
  it('concurrent refreshes with one refresh token are one request, and each gets its answer', async () => {
    seen.length = 0
    const f = refreshOnce(fetch)
    const answers = await Promise.all([ask(f, 'refresh_token', 'r0'), ask(f, 'refresh_token', 'r0'), ask(f, 'refresh_token', 'r0')])
    expect(seen).toEqual(['refresh_token r0'])
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200])
    const bodies = await Promise.all(answers.map((a) => a.json()))
    expect(new Set(bodies.map((b) => b.access_token)).size).toBe(1)
    // an ask just after the first one finished gets the same answer, not invalid_grant
    expect((await ask(f, 'refresh_token', 'r0')).status).toBe(200)
    expect(seen).toEqual(['refresh_token r0'])
  })

  it('other refresh tokens and other grants are requests of their own; a refusal is shared as it came', async () => {
    seen.length = 0
    const f = refreshOnce(fetch)
    await Promise.all([ask(f, 'refresh_token', 'r1'), ask(f, 'authorization_code', 'c1'), ask(f, 'authorization_code', 'c1')])
    expect(seen.sort()).toEqual(['authorization_code c1', 'authorization_code c1', 'refresh_token r1'])
    seen.length = 0
    const refused = await Promise.all([ask(f, 'refresh_token', 'spent'), ask(f, 'refresh_token', 'spent')])
    expect(refused.map((r) => r.status)).toEqual([400, 400])
    expect(await refused[1].json()).toEqual({ error: 'invalid_grant' })
    expect(seen).toEqual(['refresh_token spent'])
  })

  it('a refresh that got no answer is not remembered: the next ask is sent', async () => {
    let calls = 0
    const f = refreshOnce(async (input, init) => {
      if (++calls === 1) throw new TypeError('fetch failed')
      return fetch(input, init)
    })
    valid = new Set(['r2'])
    await expect(ask(f, 'refresh_token', 'r2')).rejects.toThrow('fetch failed')
    expect((await ask(f, 'refresh_token', 'r2')).status).toBe(200)
    expect(calls).toBe(2)
  })
})
