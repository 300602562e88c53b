import 'server-only'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Db } from '@/db/client'
import { projectRoot } from '@/lib/paths'
import { isEmptyState, loadState } from './load'

export const demoStateFile = () => path.join(projectRoot(), 'lib', 'state', 'demo-state.json')

/** The demo's agent token: the servers with a real process behind them (no state-file examples), what the MCP examples in docs/mcp.md send. */
export const DEMO_AGENT_TOKEN = 'tg_at_demo_agent_0000000'

/** On first start (no servers at all) load the demo state; returns whether it did. */
export async function loadDemoIfEmpty(db: Db): Promise<boolean> {
  if (!isEmptyState(db)) return false
  await loadState(db, JSON.parse(readFileSync(demoStateFile(), 'utf8')), 'toolgate:first-start')
  return true
}
