import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Db } from '@/db/client'
import { allTools } from '@/lib/catalog/listing'
import { approveTool } from '@/lib/admin/tools'
import { createAgentToken } from '@/lib/admin/tokens'
import { appendActivity } from '@/lib/activity/record'
import { openContext } from '@/lib/mcp/context'
import { watchListings, type ListingKind } from '@/lib/mcp/listen'
import { runCli } from '@/tests/helpers/cli'
import { demoStateFile, freshDb, load } from '@/tests/helpers/db'
import { DEMO_AGENT_TOKEN } from '@/lib/state/demo'
import { readFileSync } from 'node:fs'
import { waitFor } from '@/tests/upstream/harness'

// The listing computation, counted: the real one, called through a spy.
vi.mock('@/lib/catalog/listing', async (original) => {
  const real = await original<typeof import('@/lib/catalog/listing')>()
  return { ...real, allTools: vi.fn(real.allTools) }
})
const reads = () => vi.mocked(allTools).mock.calls.length

const NOTES_BOT = 'tg_at_demo_notes_bot_00' // allowed ["notes"]
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

let db: Db
let file: string
let slackOnly: string
beforeAll(async () => {
  ;({ db, file } = freshDb())
  await load(db, JSON.parse(readFileSync(demoStateFile(), 'utf8')))
  slackOnly = (await createAgentToken(db, 'slack-only', { allowedServers: ['slack'], profilePin: null }, { actor: 'test' })).token
})
afterAll(() => db?.$client.close())

const session = (token: string) => openContext(db, { get: (n) => (n === 'authorization' ? `Bearer ${token}` : null) }, undefined, undefined, 'test')

describe('listing-change detection (subscriptions/listen and the 2025-11-25 GET stream)', () => {
  it('reads listings once per caller scope, only after something they are made of changed, and tells only the scopes whose listing changed', async () => {
    const heard: Record<string, ListingKind[]> = { agent1: [], agent2: [], notes: [], slack: [] }
    const hear = (who: string) => (kind: ListingKind) => void heard[who].push(kind)
    const before = reads()
    // two streams of the same token (each its own request), and two other scopes
    const stops = [
      watchListings(session(DEMO_AGENT_TOKEN), hear('agent1')),
      watchListings(session(DEMO_AGENT_TOKEN), hear('agent2')),
      watchListings(session(NOTES_BOT), hear('notes')),
      watchListings(session(slackOnly), hear('slack')),
    ]
    try {
      // the baselines: one read per scope, not per stream
      await sleep(50)
      expect(reads() - before).toBe(3)

      // change-free seconds (an activity record is no change to a listing): nothing is read again
      await appendActivity(db, { requestId: 'req_quiet', type: 'preflight', actor: 'token:demo-agent', verdict: 'ready', data: { ids_raw: 0, ids_unique: 0, tools: [], duration_ms: 0 } })
      const quiet = reads()
      await sleep(2_500)
      expect(reads()).toBe(quiet)
      expect(heard).toEqual({ agent1: [], agent2: [], notes: [], slack: [] })

      // an approval in this process: each scope reads once more, and the two holding notes are told
      await approveTool(db, 'notes:export_notes', { actor: 'test' })
      await waitFor('both agent streams told', () => heard.agent1.length > 0 && heard.agent2.length > 0 && heard.notes.length > 0)
      expect(reads() - quiet).toBe(3)
      expect(heard).toEqual({ agent1: ['tools_list_changed'], agent2: ['tools_list_changed'], notes: ['tools_list_changed'], slack: [] })

      // another process's commit (SQLite's data_version): read again, told where served
      const settled = reads()
      expect((await runCli(['tools', 'block', 'slack:post_message', '--db', file])).code).toBe(0)
      await waitFor('the slack-only stream told', () => heard.slack.length > 0)
      expect(reads() - settled).toBe(3)
      await sleep(1_500)
      expect(heard).toEqual({ agent1: ['tools_list_changed', 'tools_list_changed'], agent2: ['tools_list_changed', 'tools_list_changed'], notes: ['tools_list_changed'], slack: ['tools_list_changed'] })
    } finally {
      for (const stop of stops) stop()
    }
  })
})
