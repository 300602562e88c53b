import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentCaller } from '@/lib/auth/caller'
import { answerMcp } from '@/lib/mcp/http'
import { DEMO_AGENT_TOKEN } from '@/lib/state/demo'
import { demoState, EXTENSION_ID, LEGACY, rpc, startHarness, type Harness } from './harness'

// The common 2025-11-25 methods take the lean path (one shared server, lib/mcp/lean.ts); every
// other request takes a server built for it (lib/mcp/http.ts, as the dashboard's preview does).
// Both must answer alike, and the shared server must never hand one exchange another's answer.

let h: Harness
beforeAll(async () => {
  h = await startHarness(demoState())
})
afterAll(async () => {
  await h?.server.stop()
})

const NOTES_BOT = 'tg_at_demo_notes_bot_00' // allowed: notes only
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LEGACY }
// per request by nature: when it was checked and the record's id
// (also inside a tool result's text, where the quotes are escaped)
const normalize = (text: string) => text.replace(/(\\*")(checked_at|request_id)\1:\1[^"\\]+\1/g, '$1$2$1:$1<per request>$1')

/** The answer of a server built for this one request (the per-request path), unrecorded. */
async function perRequest(message: Record<string, unknown>, headers: Record<string, string> = HEADERS) {
  const caller = agentCaller(h.db, DEMO_AGENT_TOKEN)!
  const res = await answerMcp({ db: h.db, caller, profile: undefined, requestId: 'req_lean_test', record: false }, new Request('http://toolgate/mcp', { method: 'POST', headers }), message)
  return { status: res.status, type: res.headers.get('content-type'), text: normalize(await res.text()) }
}
async function viaMcp(message: Record<string, unknown>, headers: Record<string, string> = HEADERS) {
  const r = await rpc(h.mcp, message, headers)
  return { status: r.status, type: r.headers.get('content-type'), text: normalize(r.text) }
}

const rider = { _meta: { [EXTENSION_ID]: { tools: [{ id: 'notes:read_note' }, { id: 'notes:export_notes' }, { id: 'jira:create_ticket' }, { id: 'nope:x' }] } } }
const requests: [string, Record<string, unknown>][] = [
  ['ping', { jsonrpc: '2.0', id: 1, method: 'ping' }],
  ['tools/list', { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }],
  ['tools/list with a Shape A rider', { jsonrpc: '2.0', id: 'a', method: 'tools/list', params: rider }],
  ['tools/list with a malformed rider', { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: { [EXTENSION_ID]: { tools: [] } } } }],
  ['tools/resolve of a served tool', { jsonrpc: '2.0', id: 4, method: 'tools/resolve', params: { name: 'slack:post_message', arguments: {} } }],
  ['tools/resolve of a withheld tool', { jsonrpc: '2.0', id: 5, method: 'tools/resolve', params: { name: 'notes:export_notes', arguments: {} } }],
  ['tools/call of a withheld tool', { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'docs:lookup', arguments: {} } }],
  ['tools/call of an unknown tool', { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'nope:x', arguments: {} } }],
  ['tools/call without a name', { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { arguments: {} } }],
  ['tools/call of describe_tool', { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'describe_tool', arguments: { tool_ids: ['notes:read_note', 'jira:create_ticket'], check: true } } }],
  // what the lean path leaves to a server built for the request
  ['a request with a key JSON-RPC does not have', { jsonrpc: '2.0', id: 10, method: 'ping', extra: true }],
  ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }],
  ['tools/list with a numeric cursor', { jsonrpc: '2.0', id: 11, method: 'tools/list', params: { cursor: 7 } }],
]

describe('the lean path', () => {
  it.each(requests)('answers %s as a server built for the request does', async (_, message) => {
    expect(await viaMcp(message)).toEqual(await perRequest(message))
  })

  it.each([
    ['no event stream in Accept', { ...HEADERS, accept: 'application/json' }],
    ['a protocol version it does not serve', { ...HEADERS, 'mcp-protocol-version': '1999-01-01' }],
    ['a form body', { ...HEADERS, 'content-type': 'application/x-www-form-urlencoded' }],
  ])('leaves a request with %s to the per-request path, which refuses it alike', async (_, headers) => {
    const message = { jsonrpc: '2.0', id: 12, method: 'tools/list', params: {} }
    const lean = await viaMcp(message, headers)
    expect(lean.status).toBeGreaterThanOrEqual(400)
    expect(lean).toEqual(await perRequest(message, headers))
  })

  it('never hands one exchange another\'s answer: concurrent requests under the same id, from callers with different scopes', async () => {
    const names = async (token: string) => {
      const r = await rpc(h.mcp, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, { 'mcp-protocol-version': LEGACY, authorization: `Bearer ${token}` })
      expect(r.body.result).toBeDefined()
      return (r.body.result!.tools as { name: string }[]).map((t) => t.name).sort()
    }
    const [all, notes] = [await names(DEMO_AGENT_TOKEN), await names(NOTES_BOT)]
    expect(all).not.toEqual(notes)
    expect(notes.every((n) => n.startsWith('notes:') || n === 'describe_tool')).toBe(true)
    const tokens = Array.from({ length: 40 }, (_, i) => (i % 2 ? NOTES_BOT : DEMO_AGENT_TOKEN))
    const answers = await Promise.all(tokens.map(names))
    answers.forEach((got, i) => expect(got).toEqual(tokens[i] === NOTES_BOT ? notes : all))
  })
})
