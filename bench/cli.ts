// The CLI as a person or a script pays for it: one process per call, on a small database.
// --help and --version load the command table only; a preflight loads the database driver and
// the evaluator and writes its activity record durably. Target: each within 300 ms.
import { spawn } from 'node:child_process'
import path from 'node:path'
import { demoStateFile, freshDb } from '@/tests/helpers/db'
import { loadState } from '@/lib/state/load'
import { readFileSync } from 'node:fs'
import { fmt, printTable, printTarget, timeInterleavedAsync } from './stats'

const bin = path.resolve(import.meta.dirname, '..', 'bin', 'toolgate.mjs')

function run(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: 'ignore' })
    child.once('error', reject)
    child.once('exit', () => resolve())
  })
}
const cli = (args: string[]) => run([bin, ...args])

export async function benchCli(): Promise<void> {
  const { db, file } = freshDb()
  await loadState(db, JSON.parse(readFileSync(demoStateFile(), 'utf8')), 'bench')
  db.$client.close()
  await cli(['--version']) // the bundle of these sources, built before anything is timed
  // the floor: starting node at all, in the same run (a loaded machine raises both alike)
  const rows = await timeInterleavedAsync(20, {
    'node -e "" (the floor: node starting)': () => run(['-e', '']),
    'toolgate --help': () => cli(['--help']),
    'toolgate --version': () => cli(['--version']),
    'toolgate tools preflight (1 id, small database, recorded)': () => cli(['tools', 'preflight', 'notes:read_note', '--db', file]),
  }, 2)
  printTable('CLI: one process per call (node start, the bundle, the command)', rows, rows[0])
  for (const r of rows.slice(1)) printTarget(`${r.name} ≤ 300 ms`, `p50 ${fmt(r.p50)}, p95 ${fmt(r.p95)}`, r.p95 <= 300)
}
