import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { runProcess } from '@/tests/helpers/cli'
import { bin, demoDbFile } from './helpers'

// What one CLI call loads, seen by a loader hook in the real process: a call loads the command
// table and the one command it runs, and nothing is built on the way.
const hook = path.resolve(import.meta.dirname, '..', 'helpers', 'trace-loads.mjs')
let n = 0
async function loads(args: string[]): Promise<string[]> {
  const trace = path.join(mkdtempSync(path.join(tmpdir(), 'toolgate-loads-')), `${n++}.txt`)
  const r = await runProcess(process.execPath, ['--import', hook, bin, ...args], { env: { TOOLGATE_TRACE_LOADS: trace } })
  expect(r.code, r.stderr).toBe(0)
  return readFileSync(trace, 'utf8').split('\n').filter(Boolean)
}
const packages = (files: string[]) => [...new Set(files.flatMap((f) => /node_modules\/((?:@[^/]+\/)?[^/.][^/]*)\//.exec(f)?.[1] ?? []))].sort()

describe('what a CLI call loads', { timeout: 120_000 }, () => {
  let db: string
  beforeAll(async () => {
    db = await demoDbFile()
    await runProcess(process.execPath, [bin, '--version']) // the bundle of these sources, built once
  })

  it.each(['--help', '--version', '', 'tools --help', 'tools preflight --help', 'help upstream login', '__complete tools '])('toolgate %s: no database driver, no Next.js, no MCP SDK, no build', async (line) => {
    expect(packages(await loads(line === '' ? [] : line.split(' ')))).toEqual([])
  })

  it('tools preflight on a database: the driver, and still no Next.js, no MCP SDK, no build', async () => {
    expect(packages(await loads(['tools', 'preflight', 'notes:read_note', '--db', db]))).toEqual(['better-sqlite3', 'bindings', 'file-uri-to-path'])
  })
})
