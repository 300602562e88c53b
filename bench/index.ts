// npm run bench: builds a large state, starts the real server on it, and prints p50/p95 with
// ratios against baselines measured in the same run. Timings are reported, never asserted.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { loadState } from '@/lib/state/load'
import { freshDb, tempDbFile } from '@/tests/helpers/db'
import { startServer } from '@/tests/helpers/server'
import { BENCH_AGENT, benchmarkState } from './state'
import { benchCore } from './core'
import { benchListen, benchMcp } from './mcp'
import { benchDashboard } from './dashboard'
import { benchPages } from './pages'
import { benchUpstream } from './upstream'
import { benchLoad } from './load'
import { benchSurface } from './surface'
import { benchCalls } from './calls'
import { benchCli } from './cli'
import { benchTelemetry } from './telemetry'
import { benchActivity } from './activity'

const API_KEY = 'tg_op_bench_key_0000000000000000'

async function main() {
  if (['core', 'mcp', 'load', 'dashboard'].some(wanted)) await benchServer()
  if (wanted('pages')) await benchPages(API_KEY)
  if (wanted('calls')) await benchCalls()
  if (wanted('upstream')) await benchUpstream()
  if (wanted('surface')) await benchSurface()
  if (wanted('cli')) await benchCli()
  if (wanted('telemetry')) await benchTelemetry()
  if (wanted('activity')) await benchActivity()
}

/** The sections that need the real server over the large benchmark state. */
async function benchServer() {
  const root = path.resolve(import.meta.dirname, '..')
  const distDir = process.env.NEXT_DIST_DIR || '.next'
  if (!existsSync(path.join(root, distDir, 'BUILD_ID'))) {
    console.log('building the app first…')
    const b = spawnSync(process.execPath, ['node_modules/next/dist/bin/next', 'build'], { cwd: root, stdio: 'inherit' })
    if (b.status !== 0) throw new Error('next build failed')
  }
  // the bench's own writes wait for the running server's (its activity index, retention) rather than fail
  const { db, file } = freshDb(tempDbFile('bench.db'))
  const t = performance.now()
  const loaded = await loadState(db, benchmarkState(), 'bench')
  console.log(`benchmark state: ${loaded.servers} servers, ${loaded.tools} tools, loaded in ${(performance.now() - t).toFixed(0)} ms (${file})`)
  const server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: API_KEY })
  try {
    if (wanted('core')) await benchCore(db, server.url, API_KEY)
    if (wanted('mcp')) {
      await benchMcp({ url: server.url, agentToken: BENCH_AGENT, pid: server.pid })
      await benchListen({ url: server.url, agentToken: BENCH_AGENT, pid: server.pid })
    }
    if (wanted('load')) await benchLoad(db, server.url, API_KEY)
    if (wanted('dashboard')) await benchDashboard({ url: server.url, apiKey: API_KEY, dbFile: file })
  } finally {
    await server.stop()
  }
}

// `npm run bench -- core load` runs only those sections; no names: all of them
const SECTIONS = ['core', 'mcp', 'load', 'dashboard', 'pages', 'calls', 'upstream', 'surface', 'cli', 'telemetry', 'activity']
const asked = process.argv.slice(2)
for (const a of asked) if (!SECTIONS.includes(a)) throw new Error(`unknown bench section "${a}": use ${SECTIONS.join(', ')}`)
const wanted = (section: string) => asked.length === 0 || asked.includes(section)

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
