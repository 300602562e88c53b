import { beforeAll, expect, it } from 'vitest'
import { encode } from 'gpt-tokenizer/encoding/cl100k_base'
import type { Db } from '@/db/client'
import { openDb } from '@/lib/server/database'
import type { ToolResult } from '@/lib/preflight/evaluate'
import { HASH_SCHEMA_VERSION } from '@/lib/preflight/hash'
import { reasons, reasonSpec, type Reason } from '@/lib/preflight/taxonomy'
import { wireResult } from '@/lib/mcp/wire'
import { wireReasons } from '@/lib/schemas/extension'
import type { StateFileInput } from '@/lib/schemas/state'
import { load } from '@/tests/helpers/db'
import { agent, check, operator } from '@/tests/helpers/evaluate'

// What a verdict costs the agent that reads it, in cl100k_base tokens. "Beyond its id": the
// tokens of the result object as the agent receives it — compact JSON, as a Shape A facet's
// tools entry (wireResult) or a REST result carries it — minus the tokens of its id as that
// JSON writes it (a JSON string, quotes included). A ready result is then its braces, the
// "id" key and "status":"ready"; an unavailable one pays for its reason, retryable, action,
// detail and remediation. Each reason is measured as it occurs, with realistic ids, through the
// real evaluator: at the agent tier (every surface an agent token reaches), and at the operator
// tier only for the two codes that exist there alone (hash_mismatch: an agent's REST pin).

type Srv = NonNullable<StateFileInput['servers']>[number]
const tool = (name: string, extra: object = {}) => ({ name, input_schema: { type: 'object' }, ...extra })
// a transport (never connected: these tests evaluate states, no runtime runs) so `ready` can be true
const srv = (name: string, tools: ReturnType<typeof tool>[], extra: Partial<Srv> = {}): Srv => ({ name, transport: { url: `https://${name}.example/mcp` }, connection: { state: 'ready' }, tools, ...extra })

// a well-formed pin of the current schema that matches no definition
const PIN = `sha256/v${HASH_SCHEMA_VERSION}:${'0'.repeat(64)}`
const bot = { name: 'ci-bot', allowedServers: ['github', 'filesystem'], profilePin: null }

let db: Db
beforeAll(async () => {
  db = openDb(':memory:')
  await load(db, {
    servers: [
      srv('github', [
        tool('create_issue'), tool('search_code'), tool('delete_branch'),
        tool('create_pull_request', { approval: { status: 'changed' } }),
        tool('merge_pull_request', { approval: { status: 'pending' } }),
        tool('delete_repository', { approval: { status: 'approved', disabled: true } }),
      ], { disabled_tools: ['delete_branch'] }),
      srv('filesystem', [tool('read_file', { annotations: { readOnlyHint: true } }), tool('write_file', { annotations: { readOnlyHint: false } }), tool('list_directory')]),
      srv('linear', [tool('create_issue')], { connection: { state: 'connecting' } }),
      srv('sentry', [tool('list_issues')], { connection: { state: 'error', detail: 'failed: the server process exited with code 1', action: 'restart' } }),
      srv('slack', [tool('post_message')], { connection: { state: 'pending_auth', detail: 'the server asks for an OAuth login: toolgate upstream login slack', action: 'login' } }),
      srv('jira', [tool('create_ticket')], { enabled: false }),
      srv('notion', [tool('search_pages')], { quarantined: true }),
      srv('postgres', [tool('query')]),
    ],
  })
})

/** One result per reason, as it occurs. */
const cases: Record<Reason, () => ToolResult> = {
  server_initializing: () => check(db, agent(), ['linear:create_issue']).tools[0],
  server_unhealthy: () => check(db, agent(), ['sentry:list_issues']).tools[0],
  server_disabled: () => check(db, agent(), ['jira:create_ticket']).tools[0],
  server_quarantined: () => check(db, agent(), ['notion:search_pages']).tools[0],
  tool_pending_approval: () => check(db, agent(), ['github:merge_pull_request']).tools[0],
  tool_changed: () => check(db, agent(), ['github:create_pull_request']).tools[0],
  tool_blocked_by_user: () => check(db, agent(), ['github:delete_repository']).tools[0],
  oauth_required: () => check(db, agent(), ['slack:post_message']).tools[0],
  hash_mismatch: () => check(db, agent(), ['github:search_code'], { pins: new Map([['github:search_code', PIN]]) }).tools[0],
  server_not_in_scope: () => check(db, { tier: 'operator', name: 'test', asToken: bot }, ['postgres:query']).tools[0],
  tool_denied_by_config: () => check(db, agent(), ['github:delete_branch']).tools[0],
  missing_annotation: () => check(db, agent(), ['filesystem:list_directory'], { policy: { read_only_only: true } }).tools[0],
  policy_filtered: () => check(db, agent(), ['filesystem:write_file'], { policy: { read_only_only: true } }).tools[0],
  not_found: () => check(db, agent(), ['github:create_isue']).tools[0],
  server_not_configured: () => check(db, operator, ['gitlab:create_issue']).tools[0],
}

// the three codes MCP never carries (contract §5, §6) reach an agent as REST and the CLI carry them: the evaluator's result
const onWire = (r: ToolResult) => (r.status === 'unavailable' && !(wireReasons as readonly string[]).includes(r.reason) ? r : wireResult(r))
const beyondId = (r: ToolResult) => encode(JSON.stringify(onWire(r))).length - encode(JSON.stringify(r.id)).length
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

it('measures one result of every reason, each reason as it occurs, each still saying what, whether to retry, and the fix', () => {
  expect(Object.keys(cases).sort()).toEqual([...reasons].sort())
  for (const reason of reasons) {
    const r = cases[reason]()
    if (r.status !== 'unavailable') throw new Error(`${reason}: ready`)
    expect(r.reason).toBe(reason)
    // still what is wrong, whether retrying helps, and the fix
    expect(r.detail.length).toBeGreaterThan(0)
    expect(r.retryable).toBe(reasonSpec[reason].retryable)
    expect(r.remediation.length).toBeGreaterThan(0)
  }
})

it('an unavailable verdict costs a median of at most 50 cl100k tokens beyond its id, a ready one at most 8', () => {
  const costs = Object.fromEntries(reasons.map((reason) => [reason, beyondId(cases[reason]())]))
  console.log(Object.entries(costs).map(([r, n]) => `${r.padEnd(22)} ${n}`).join('\n'), `\nmedian ${median(Object.values(costs))}, worst ${Math.max(...Object.values(costs))}`)
  expect(median(Object.values(costs))).toBeLessThanOrEqual(50)
  for (const id of ['github:create_issue', 'filesystem:read_file', 'postgres:query']) {
    const ready = check(db, agent(), [id]).tools[0]
    expect(ready.status).toBe('ready')
    expect(beyondId(ready)).toBeLessThanOrEqual(8)
  }
})
