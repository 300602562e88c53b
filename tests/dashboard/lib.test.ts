import { describe, expect, it } from 'vitest'
import { chainHead, listActivity } from '@/db/queries/activity'
import { appendActivity, insertActivity } from '@/lib/activity/record'
import { transactionOn } from '@/db/client'
import { overview } from '@/lib/dashboard/overview'
import { changeTools } from '@/lib/admin/bulk-tools'
import { toolInventory } from '@/lib/catalog/inventory'
import { serverRows } from '@/lib/catalog/servers'
import { activityExport, activityPage } from '@/lib/dashboard/activity'
import { cliFor } from '@/lib/dashboard/preview-commands'
import { mintRequestId } from '@/lib/activity/request-id'
import { runCli } from '@/tests/helpers/cli'
import { groupByRequest } from '@/lib/activity/present'
import { suggestToolIds } from '@/db/queries/tools'
import { fixFor } from '@/lib/dashboard/fixes'
import { dashboardPreflight } from '@/lib/dashboard/preflight'
import { reasons } from '@/lib/preflight/taxonomy'
import { freshDb, load } from '@/tests/helpers/db'
import { demoState } from './harness'

const demo = async () => {
  const { db } = freshDb()
  await load(db, demoState())
  return db
}

describe('dashboard logic', () => {
  it('autocomplete ranges over the tools key: by server prefix, then by tool prefix', async () => {
    const db = await demo()
    expect(suggestToolIds(db, 'sl', 20)).toEqual(['slack:post_message'])
    expect(suggestToolIds(db, 'notes:re', 20)).toEqual(['notes:read_note', 'notes:rebuild_index'])
    expect(suggestToolIds(db, 'notes:', 3)).toHaveLength(3)
    expect(suggestToolIds(db, 'nope', 20)).toEqual([])
  })

  it('every reason maps to an honest row action (or none), never a fake one', async () => {
    const stateFile = { facts: { transport: null, clientCredentials: false }, narrowing: null }
    for (const reason of reasons) {
      const fix = fixFor({ id: 'notes:x', status: 'unavailable', reason, retryable: false, detail: '', remediation: '' }, stateFile)
      if (fix?.kind === 'run') expect(['server_disabled', 'tool_blocked_by_user', 'tool_denied_by_config']).toContain(reason)
      expect(fix?.kind).not.toBe('login')
    }
    expect(fixFor({ id: 'notes:x', status: 'ready' }, stateFile)).toBeNull()
    // a connection fix is offered only where it can work: login on an HTTP server, restart on a managed one
    const unhealthy = (action: 'login' | 'restart') => ({ id: 'x:y', status: 'unavailable' as const, reason: 'server_unhealthy' as const, retryable: true, action, detail: '', remediation: '' })
    expect(fixFor(unhealthy('login'), { facts: { transport: 'http', clientCredentials: false }, narrowing: null })?.kind).toBe('login')
    expect(fixFor(unhealthy('login'), { facts: { transport: 'http', clientCredentials: true }, narrowing: null })?.kind).toBe('advice')
    expect(fixFor(unhealthy('login'), { facts: { transport: 'stdio', clientCredentials: false }, narrowing: null })?.kind).toBe('advice')
    expect(fixFor(unhealthy('restart'), { facts: { transport: 'stdio', clientCredentials: false }, narrowing: null })?.kind).toBe('run')
    expect(fixFor(unhealthy('restart'), stateFile)?.kind).toBe('advice')
  })

  it('a check as a token carries the operator-tier cause and the fix that can work', async () => {
    const db = await demo()
    const r = await dashboardPreflight(db, { ids: ['billing:get_invoice', 'jira:create_ticket', 'notes:export_notes'], token: 'nightly', profile: null, policy: {} }, { actor: 'alice', operatorId: 'op_alice', auth: 'session' })
    expect(r.tier).toBe('agent')
    // what nightly would be told, on the record as alice's act, not as nightly's own check
    const [record] = listActivity(db, { type: 'preflight', requestId: r.request_id })
    expect(record).toMatchObject({ actor: 'alice', operatorId: 'op_alice', auth: 'session', tier: 'agent', surface: 'dashboard', data: { as: 'token:nightly' } })
    expect(r.tools[0]).toMatchObject({ id: 'billing:get_invoice', reason: 'not_found' })
    expect(r.rows['billing:get_invoice'].cause).toMatchObject({ reason: 'server_not_in_scope', detail: expect.stringContaining('outside profile "ops"') })
    expect(r.rows['billing:get_invoice'].fix).toEqual({ kind: 'link', href: '/tokens#profile-ops', label: 'Edit profile ops' })
    // jira is an HTTP server behind OAuth (the demo's own, in demo mode): its login is the fix
    expect(r.rows['jira:create_ticket'].fix).toEqual({ kind: 'login', server: 'jira', label: 'Log in' })
    // the same reason at both tiers: nothing more to say, the fix is the agent's own
    expect(r.rows['notes:export_notes'].cause).toBeUndefined()
    expect(r.rows['notes:export_notes'].fix).toMatchObject({ kind: 'approve' })
    expect(r.details['notes:export_notes']).toMatchObject({ kind: 'review' })
  })

  it('a dashboard check shows the diff of a changed tool and what a quarantined server would expose', async () => {
    const db = await demo()
    const r = await dashboardPreflight(db, { ids: ['notes:share_note', 'github:list_issues'], token: null, profile: null, policy: {} }, { actor: 'operator' })
    expect(r.exit_code).toBe(11)
    const review = r.details['notes:share_note']
    expect(review).toMatchObject({ kind: 'review', review: { id: 'notes:share_note', status: 'tool_changed' } })
    const diff = review.kind === 'review' ? review.review.diff : []
    expect(diff.map((d) => d.field)).toEqual(['description', 'input_schema', 'annotations'])
    expect(diff[0]).toMatchObject({ before: 'Share a note with a teammate.', after: expect.stringContaining('anyone who has the link') })
    expect(r.details['github:list_issues']).toMatchObject({ kind: 'exposure', server: 'github' })
    expect(listActivity(db, { type: 'preflight' })[0]).toMatchObject({ surface: 'dashboard', requestId: r.request_id })
  })

  it('bulk changes are one transaction: one unknown id changes nothing', async () => {
    const db = await demo()
    await expect(changeTools(db, 'approve', ['notes:export_notes', 'notes:nope'], { actor: 't' })).rejects.toThrow(/notes:nope/)
    expect(toolInventory(db, 'notes').find((t) => t.name === 'export_notes')?.approval).toBe('pending')
    expect(listActivity(db, { type: 'tool.approved' })).toEqual([])
  })

  it('activity pages newest first by id, honour a time window, and group by request', async () => {
    const db = await demo()
    for (let i = 0; i < 30; i++) await appendActivity(db, { requestId: `req_${Math.floor(i / 3)}`, type: 'preflight', actor: 't', verdict: i % 2 ? 'ready' : 'blocked', at: 1_000 + i, data: { ids_raw: 0, ids_unique: 0, tools: [], duration_ms: 0 } })
    const first = activityPage(db, { verdict: 'blocked' }, 5)
    expect(first.items.map((i) => i.verdict)).toEqual(Array(5).fill('blocked'))
    const second = activityPage(db, { verdict: 'blocked', before: first.nextBefore! }, 5)
    expect(second.items[0].id).toBeLessThan(first.items.at(-1)!.id)
    const window = activityPage(db, { from: 1_010, to: 1_014 })
    expect(window.items.map((i) => i.at)).toEqual([1_014, 1_013, 1_012, 1_011, 1_010].map((t) => new Date(t).toISOString()))
    expect(window.nextBefore).toBeNull()
    expect(groupByRequest(window.items).map((g) => [g.request_id, g.items.length])).toEqual([['req_4', 3], ['req_3', 2]])
  })
})

describe('the Overview under a flood of refused checks', () => {
  it('judges again and lists a bounded number of each agent\'s refused ids, so the page stays small', async () => {
    const db = await demo()
    // 400 refused checks of nightly, each with 100 ids of its own choosing (no tool has them)
    transactionOn(db, (tx) => {
      for (let r = 0; r < 400; r++) {
        insertActivity(tx, {
          requestId: `flood_${r}`, type: 'preflight', surface: 'rest', tier: 'agent', actor: 'token:nightly', verdict: r % 2 ? 'unknown_ids' : 'blocked',
          data: { ids_raw: 100, ids_unique: 100, duration_ms: 1, tools: Array.from({ length: 100 }, (_, i) => ({ id: `nosuch${r}_${i}:${'x'.repeat(60)}`, status: 'unavailable' as const, reason: 'not_found' })) },
        })
      }
    })
    const o = overview(db, 'operator')
    const nightly = o.agents.find((a) => a.token === 'nightly')!
    // the 50 ids judged again share one cause (no such servers) and one fix: one group, counting all, listing 10
    expect(nightly.causes.map((c) => [c.reason, c.count, c.ids.length])).toEqual([['server_not_configured', 50, 10]])
    expect(nightly).toMatchObject({ unjudged: true, lastRequestId: 'flood_399' })
    expect(JSON.stringify(o).length).toBeLessThan(100_000)
  }, 120_000)
})

describe('the Overview reads only the tools an operator holds back', () => {
  it('lists the same waiting and blocked tools as the whole inventory\'s classifier, whatever gates apply', async () => {
    const { db } = freshDb()
    const tool = (name: string, approval?: { status: 'approved' | 'pending' | 'changed'; disabled?: boolean }) => ({ name, annotations: { destructiveHint: name === 't3' }, ...(approval ? { approval } : {}) })
    await load(db, {
      servers: [
        { name: 'a', disabled_tools: ['t7'], tools: [tool('t1', { status: 'pending' }), tool('t2', { status: 'changed' }), tool('t3', { status: 'approved', disabled: true }), tool('t4', { status: 'pending', disabled: true }), tool('t5', { status: 'approved' }), tool('t6'), tool('t7', { status: 'pending' })] },
        { name: 'b', trust: 'auto', tools: [tool('p', { status: 'pending' })] },
        { name: 'd', enabled: false, tools: [tool('y', { status: 'pending', disabled: true })] },
        { name: 'q', quarantined: true, tools: [tool('x', { status: 'pending' })] },
      ],
    })
    const o = overview(db, 'operator')
    const inventory = toolInventory(db)
    const seen = (list: typeof inventory) => list.map(({ id, server, name, status, blocked, annotations }) => ({ id, server, name, status, blocked, annotations }))
    expect(o.tools).toEqual(seen([...inventory.filter((t) => t.status === 'tool_changed'), ...inventory.filter((t) => t.status === 'tool_pending_approval')]))
    expect(o.blockedTools).toEqual(seen(inventory.filter((t) => t.blocked)))
    // denied by config, auto-trusted and quarantined tools are not waiting for an approval; a block shows on any server
    expect(o.tools.map((t) => t.id)).toEqual(['a:t2', 'a:t1'])
    expect(o.blockedTools.map((t) => [t.id, t.status])).toEqual([['a:t3', 'tool_blocked_by_user'], ['a:t4', 'tool_blocked_by_user'], ['d:y', 'server_disabled']])

    // the Servers list counts by name and approval alone, and counts what the whole inventory says
    const count = (server: string) => {
      const list = inventory.filter((t) => t.server === server)
      const by = (status: string) => list.filter((t) => t.status === status).length
      return { total: list.length, callable: by('callable'), pending: by('tool_pending_approval'), changed: by('tool_changed'), blocked: list.filter((t) => t.blocked).length }
    }
    const rows = serverRows(db)
    expect(Object.fromEntries(rows.map((r) => [r.name, r.tools]))).toEqual(Object.fromEntries(['a', 'b', 'd', 'q'].map((s) => [s, count(s)])))
    expect(rows.find((r) => r.name === 'a')!.tools).toEqual({ total: 7, callable: 2, pending: 1, changed: 1, blocked: 2 })
  })
})

describe('what the dashboard hands to other programs', () => {
  it('the CSV export never starts a cell with a formula: = + - @ tab and CR are shown as text', async () => {
    const { db } = freshDb()
    const hostile = ['=HYPERLINK("http://evil.example","x")', '+1+1', '-2+3', '@SUM(A1)', '\tcmd', '\r=1+1']
    for (const target of hostile) {
      await appendActivity(db, { requestId: mintRequestId(), type: 'tool.call', actor: 'token:nightly', surface: 'mcp-shape-a', tier: 'agent', data: { target, arguments_hash: 'a'.repeat(64), outcome: 'ok', duration_ms: 1 } })
    }
    const csv = activityExport(db, {}, 'csv').body
    const [header, ...rows] = parseCsv(csv)
    const summaries = rows.map((row) => row[header.indexOf('summary')])
    expect(summaries.sort()).toEqual(hostile.map((h) => `'${h}: ok in 1 ms`).sort())
  })

  it('the JSON export carries the chain head as it was: what a copy kept elsewhere is compared against', async () => {
    const { db } = freshDb()
    for (let i = 0; i < 3; i++) await appendActivity(db, { requestId: mintRequestId(), type: 'preflight', actor: 'token:nightly', data: { ids_raw: 0, ids_unique: 0, tools: [], duration_ms: 0 } })
    const exported = JSON.parse(activityExport(db, {}, 'json').body)
    expect(exported.records).toHaveLength(3)
    expect(exported.chain_head).toEqual({ id: exported.records[0].id, hash: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(exported.chain_head).toEqual(chainHead(db))
  })

  it('"Copy as CLI" puts the ids after --, quoted: an id that looks like a flag stays an id', async () => {
    const ids = ['--url=http://evil.example/mcp', "notes:it's", 'notes:read_note']
    const command = cliFor('http://127.0.0.1:3000', { ids, token: null, profile: null, policy: { read_only_only: true } })
    expect(command).toBe("npx toolgate tools preflight --in-band --url 'http://127.0.0.1:3000/mcp' --read-only-only -o json -- '--url=http://evil.example/mcp' 'notes:it'\\''s' 'notes:read_note'")
    // and the CLI reads it so: the id is checked, nothing is sent elsewhere
    const { file } = freshDb()
    const r = await runCli(['tools', 'preflight', '--db', file, '-o', 'json', '--', ids[0]])
    expect(JSON.parse(r.stdout).tools.map((t: { id: string }) => t.id)).toEqual([ids[0]])
  })
})

/** RFC 4180, as a spreadsheet reads it. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [[]]
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++ } else if (c === '"') quoted = false
      else cell += c
    } else if (c === '"') quoted = true
    else if (c === ',') { rows[rows.length - 1].push(cell); cell = '' }
    else if (c === '\r' && text[i + 1] === '\n') { rows[rows.length - 1].push(cell); cell = ''; rows.push([]); i++ }
    else cell += c
  }
  return rows.filter((r) => r.length > 1)
}
