import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshDb, load } from '@/tests/helpers/db'
import { startServer, type RunningServer } from '@/tests/helpers/server'

let server: RunningServer
beforeAll(async () => {
  const { db, file } = freshDb()
  await load(db, {})
  server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: 'tg_op_cimd_test_key_000000000000' })
})
afterAll(async () => { await server?.stop() })

describe("toolgate's own client ID metadata document", () => {
  it('is public, names its own URL as client_id and toolgate\'s callback as its redirect URI', async () => {
    const res = await fetch(`${server.url}/oauth/client-metadata.json`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('application/json')
    expect(await res.json()).toEqual({
      client_id: `${server.url}/oauth/client-metadata.json`,
      client_name: 'toolgate',
      client_uri: `${server.url}/`,
      redirect_uris: [`${server.url}/api/upstream/oauth/callback`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    })
  })

  it('believes X-Forwarded-Proto only behind a proxy it was told of (TOOLGATE_TRUST_PROXY; see tests/security/web-hardening.test.ts), and it is only read', async () => {
    const res = await fetch(`${server.url}/oauth/client-metadata.json`, { headers: { 'x-forwarded-proto': 'https' } })
    expect((await res.json()).client_id).toBe(`http://127.0.0.1:${server.port}/oauth/client-metadata.json`)
    expect((await fetch(`${server.url}/oauth/client-metadata.json`, { method: 'POST' })).status).toBe(405)
  })
})
