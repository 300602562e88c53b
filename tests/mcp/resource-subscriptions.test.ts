import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { createAgentToken, revokeAgentToken } from '@/lib/admin/tokens'
import { createProfile } from '@/lib/admin/profiles'
import { updateSettings } from '@/lib/admin/settings'
import { MAX_SUBSCRIPTIONS } from '@/lib/mcp/subscriptions'
import { restartLanded } from '@/lib/catalog/servers'
import { serverState } from '@/db/queries/servers'
import { runCli } from '@/tests/helpers/cli'
import { startGateway, type Gateway } from '@/tests/helpers/gateway'
import { stdioFixture, waitFor, type Control } from '@/tests/upstream/harness'
import { connectWithStream, LEGACY, legacyRpc, modernRpc } from './harness'

// 2025-11-25 resources/subscribe on the stateless endpoint: a subscription belongs to its
// token (and path profile), and its updates go out on that token's GET streams — against a
// real stdio upstream that keeps subscriptions per session (one process per agent token).

const KEY = 'tg_op_subscriptions_test_key_00000'
const resources = (text: string): Control => ({
  tools: [{ name: 'ok' }],
  resources: [{ uri: 'fixture://a', name: 'a', text }, { uri: 'fixture://b', name: 'b', text }],
  resourceTemplates: [{ uriTemplate: 'fixture://item/{id}', name: 'item' }],
  subscribe: true,
})
const watched = stdioFixture(resources('1'))
/** changes both of watched's resources: each session subscribed to one announces it */
const change = (text: string) => watched.set(resources(text))
const hidden = stdioFixture({ tools: [{ name: 'ok' }], resources: [{ uri: 'fixture://secret', name: 'secret', text: 's' }], subscribe: true })
const plain = stdioFixture({ tools: [{ name: 'ok' }], resources: [{ uri: 'plain://r', name: 'r', text: 'p' }] })

let g: Gateway
let mcp: string
/** a second agent with every server in scope */
let other: string
/** an agent whose scope holds only watched */
let narrow: string
/** an agent whose scope holds only plain, which keeps no subscriptions */
let plainOnly: string
beforeAll(async () => {
  g = await startGateway(KEY, { upstreams: { watched: watched.transport, hidden: hidden.transport, plain: plain.transport } })
  mcp = `${g.server.url}/mcp`
  const token = async (name: string, allowedServers: string[]) => (await createAgentToken(g.db, name, { allowedServers, profilePin: null }, { actor: 'test' })).token
  other = await token('other', ['*'])
  narrow = await token('narrow', ['watched'])
  plainOnly = await token('plain-only', ['plain'])
  await createProfile(g.db, 'just-watched', ['watched'], { actor: 'test' })
}, 120_000)
afterAll(async () => {
  await g?.server.stop()
})

const as = (token: string) => ({ authorization: `Bearer ${token}` })

/** An agent's 2025-11-25 client (the 1.x SDK) with its GET stream open, noting each resource update heard there. */
async function listener(token: string, url = mcp) {
  const c = new Client({ name: 'subscriptions-test', version: '1' })
  const updated: string[] = []
  c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri))
  await connectWithStream(c, url, token)
  return { c, updated }
}

describe('resource subscriptions on 2025-11-25 (resources/subscribe, heard on the GET stream)', () => {
  it('declares resources.subscribe exactly where a server the caller may reach keeps subscriptions, on both revisions', async () => {
    for (const [token, offered] of [[g.agent, true], [plainOnly, false]] as const) {
      const init = await legacyRpc(mcp, 'initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'raw', version: '1' } }, as(token))
      expect(init.body.result!.capabilities.resources.subscribe ?? false).toBe(offered)
      const discover = await modernRpc(mcp, 'server/discover', {}, { headers: as(token) })
      expect(discover.body.result!.capabilities.resources.subscribe ?? false).toBe(offered)
    }
  })

  it('an update reaches every GET stream of the token that subscribed, under its URI, and none of another token\'s nor of its own on another path profile; unsubscribe stops it, and so does revoking the token', async () => {
    // subscribed by one POST before any stream is open: kept for the token, heard once one opens
    expect((await legacyRpc(mcp, 'resources/subscribe', { uri: 'fixture://a' }, as(g.agent))).body).toMatchObject({ result: {} })
    const mine = await listener(g.agent)
    const mineToo = await listener(g.agent)
    const others = await listener(other)
    // the same token on a path profile is another scope (another "session")
    const mineOnProfile = await listener(g.agent, `${mcp}/p/just-watched`)
    try {
      expect(mine.c.getServerCapabilities()?.resources?.subscribe).toBe(true)
      expect(await others.c.subscribeResource({ uri: 'fixture://b' })).toEqual({})
      change('2')
      await waitFor('the first updates', () => mine.updated.length > 0 && mineToo.updated.length > 0 && others.updated.length > 0)

      // unsubscribed from a, subscribed to b: only b is heard of
      expect(await mine.c.subscribeResource({ uri: 'fixture://b' })).toEqual({})
      expect(await mine.c.unsubscribeResource({ uri: 'fixture://a' })).toEqual({})
      // not subscribed (any more): answered {} all the same, as an MCP server does
      expect(await mine.c.unsubscribeResource({ uri: 'fixture://a' })).toEqual({})
      change('3')
      await waitFor('the second updates', () => mine.updated.length > 1 && mineToo.updated.length > 1 && others.updated.length > 1)
      expect(mine.updated).toEqual(['fixture://a', 'fixture://b'])
      expect(mineToo.updated).toEqual(['fixture://a', 'fixture://b'])
      expect(others.updated).toEqual(['fixture://b', 'fixture://b'])

      // the other token revoked: its subscription is heard of no more (two rounds of b for the first token since)
      await revokeAgentToken(g.db, 'other', { actor: 'test' })
      change('4')
      await waitFor('the third update', () => mine.updated.length > 2)
      change('5')
      await waitFor('the fourth update', () => mine.updated.length > 3)
      expect(mine.updated).toEqual(['fixture://a', 'fixture://b', 'fixture://b', 'fixture://b'])
      expect(others.updated).toEqual(['fixture://b', 'fixture://b'])
      expect(mineOnProfile.updated).toEqual([])
    } finally {
      for (const l of [mine, mineToo, others, mineOnProfile]) await l.c.close()
    }
  }, 120_000)

  it('a subscription outlives its server\'s reconnect (a restart, a changed setting): the new session is subscribed and its updates are heard', async () => {
    const mine = await listener(g.agent)
    try {
      expect(await mine.c.subscribeResource({ uri: 'fixture://a' })).toEqual({})
      change('before')
      await waitFor('an update before the restart', () => mine.updated.length > 0)
      const restarted = await runCli(['upstream', 'restart', 'watched', '--db', g.dbFile])
      expect(restarted.code, restarted.stderr).toBe(0)
      await waitFor('the restart landed', () => restartLanded(g.db, 'watched') && serverState(g.db, 'watched')?.connection?.state === 'ready')
      const heard = mine.updated.length
      // the agent's own session comes back subscribed: nothing is asked of the client again
      await waitFor('an update after the restart', () => {
        change(`after ${Date.now()}`)
        return mine.updated.length > heard
      }, 30_000)
      expect(mine.updated.at(-1)).toBe('fixture://a')
    } finally {
      await mine.c.close()
    }
  }, 90_000)

  it('a URI outside the caller\'s scope, or one no server it may reach owns, is refused exactly as a read of it is', async () => {
    for (const [token, uri] of [[narrow, 'toolgate://hidden/fixture://secret'], [g.agent, 'fixture://nowhere']] as const) {
      const read = await legacyRpc(mcp, 'resources/read', { uri }, as(token))
      const subscribed = await legacyRpc(mcp, 'resources/subscribe', { uri }, as(token))
      expect(read.body.error).toMatchObject({ code: -32602, data: { uri } })
      expect(subscribed.body.error).toEqual(read.body.error)
    }
    // in scope, the same URI is subscribed to
    expect((await legacyRpc(mcp, 'resources/subscribe', { uri: 'toolgate://hidden/fixture://secret' }, as(g.agent))).body).toMatchObject({ result: {} })
    expect((await legacyRpc(mcp, 'resources/unsubscribe', { uri: 'toolgate://hidden/fixture://secret' }, as(g.agent))).body).toMatchObject({ result: {} })
    // readable, but its server keeps no subscriptions
    const unoffered = await legacyRpc(mcp, 'resources/subscribe', { uri: 'plain://r' }, as(g.agent))
    expect(unoffered.body.error).toEqual({ code: -32602, message: 'Invalid params: "plain://r" cannot be subscribed to: its server offers no resource subscriptions' })
    const malformed = await legacyRpc(mcp, 'resources/subscribe', { uri: 7 }, as(g.agent))
    expect(malformed.body.error).toEqual({ code: -32602, message: 'Invalid params: uri must be a string (the resource\'s URI, as listed)' })
  })

  it('an anonymous caller (a new caller on every request) cannot subscribe', async () => {
    const ctx = { actor: 'test' }
    await createProfile(g.db, 'anon-watched', ['watched'], ctx)
    await updateSettings(g.db, { mcp_anonymous_profile: 'anon-watched' }, ctx)
    try {
      // no token: a loopback caller under the anonymous profile, which may read the resource
      expect((await legacyRpc(mcp, 'resources/read', { uri: 'fixture://a' }, { authorization: null })).body.result?.contents).toHaveLength(1)
      // so its initialize does not offer what it would be refused
      const init = await legacyRpc(mcp, 'initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'raw', version: '1' } }, { authorization: null })
      expect(init.body.result!.capabilities.resources.subscribe ?? false).toBe(false)
      const refused = await legacyRpc(mcp, 'resources/subscribe', { uri: 'fixture://a' }, { authorization: null })
      expect(refused.body.error).toEqual({ code: -32602, message: 'resources/subscribe needs an agent token: an anonymous caller is a new caller on every request, so no subscription can be kept for it' })
    } finally {
      await updateSettings(g.db, { mcp_anonymous_profile: null }, ctx)
    }
  })

  it(`a token holds at most ${MAX_SUBSCRIPTIONS} subscriptions; the one over is refused, naming the limit`, async () => {
    const subscribe = (uri: string) => legacyRpc(mcp, 'resources/subscribe', { uri }, as(narrow))
    for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) expect((await subscribe(`fixture://item/${i}`)).body).toMatchObject({ result: {} })
    const over = await subscribe(`fixture://item/${MAX_SUBSCRIPTIONS}`)
    expect(over.body.error).toEqual({ code: -32000, message: `Too many resource subscriptions: an agent token (on one path profile) may hold ${MAX_SUBSCRIPTIONS} at once; unsubscribe from one first` })
    // one already held is no new one
    expect((await subscribe('fixture://item/0')).body).toMatchObject({ result: {} })
    expect((await legacyRpc(mcp, 'resources/unsubscribe', { uri: 'fixture://item/0' }, as(narrow))).body).toMatchObject({ result: {} })
    expect((await subscribe(`fixture://item/${MAX_SUBSCRIPTIONS}`)).body).toMatchObject({ result: {} })
  }, 120_000)
})
