import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { insertActivity } from '@/lib/activity/record'
import { appendLogs } from '@/db/queries/upstream'
import { freshDb, load } from '@/tests/helpers/db'
import { runCli } from '@/tests/helpers/cli'

// what a hostile agent, upstream or file can put in a string: erase the line (ESC[2K), write the
// clipboard (OSC 52, ended by BEL), an 8-bit CSI (C1), and a right-to-left override
const EVIL = 'ok\x1b[2Kfake\x1b]52;c;cm0gLXJmIH4=\x07more\u009b31mred\u202eexe.txt'
const SHOWN = ['\\x1b[2Kfake', '\\x1b]52;c;cm0gLXJmIH4=\\x07more', '\\x9b31mred', '⟦U+202E⟧exe.txt']
/** anything a terminal acts on or hides: C0 (but newline), DEL, C1, bidi controls */
const ACTIVE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

let file: string
beforeAll(async () => {
  const fresh = freshDb()
  file = fresh.file
  await load(fresh.db, { servers: [{ name: 'srv', transport: { command: 'node', args: ['x.mjs'] }, tools: [{ name: 'read', description: `Reads. ${EVIL}`, input_schema: { type: 'object' } }] }] })
  insertActivity(fresh.db, { requestId: 'req_escapes', type: 'tool.call', actor: `token:${EVIL}`, server: 'srv', data: { target: `srv:${EVIL}`, arguments_hash: 'a'.repeat(64), outcome: 'refused', duration_ms: 1 } })
  await appendLogs(fresh.db, [{ serverName: 'srv', at: Date.now(), stream: 'stderr', line: EVIL }])
  fresh.db.$client.close()
})

/** printed with every hostile sequence visible, and nothing a terminal would act on */
function expectEscaped(out: string) {
  expect(out).not.toMatch(ACTIVE)
  for (const s of SHOWN) expect(out).toContain(s)
}

describe('untrusted text printed by the CLI is escaped', () => {
  it('activity list: a record\'s actor and summary', async () => {
    const r = await runCli(['activity', 'list', '--db', file])
    expect(r.code, r.stderr).toBe(0)
    expectEscaped(r.stdout)
  })

  it('upstream logs: an upstream\'s stderr line', async () => {
    const r = await runCli(['upstream', 'logs', 'srv', '--db', file])
    expect(r.code, r.stderr).toBe(0)
    expectEscaped(r.stdout)
  })

  it('tools show: an upstream\'s description', async () => {
    const r = await runCli(['tools', 'show', 'srv:read', '--db', file])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).not.toMatch(ACTIVE)
    expect(r.stdout).toContain('⟦U+202E⟧exe.txt')
    expect(r.stdout).toContain('\\x9b31mred')
  })

  it('upstream import: the name of an entry it refuses', async () => {
    const mcp = path.join(path.dirname(file), 'mcp.json')
    writeFileSync(mcp, JSON.stringify({ mcpServers: { [EVIL]: { command: 'node' } } }))
    const r = await runCli(['upstream', 'import', mcp, '--db', file])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('not imported')
    expectEscaped(r.stderr)
  })

  it('state load: an error quoting the file', async () => {
    const state = path.join(path.dirname(file), 'state.json')
    writeFileSync(state, JSON.stringify({ version: 1, servers: [{ name: 'srv', tools: [{ name: EVIL, input_schema: {} }, { name: EVIL, input_schema: {} }] }] }))
    const r = await runCli(['state', 'load', state, '--db', file])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('duplicate tool name')
    expectEscaped(r.stderr)
  })

  it('JSON output: the same values, with C1 controls and bidi overrides as \\u escapes', async () => {
    const r = await runCli(['activity', 'list', '-o', 'json', '--db', file])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).not.toMatch(ACTIVE)
    expect(JSON.parse(r.stdout).find((x: { type: string }) => x.type === 'tool.call').actor).toBe(`token:${EVIL}`)
    const err = await runCli(['state', 'load', path.join(path.dirname(file), 'state.json'), '-o', 'json', '--db', file])
    expect(err.stderr).not.toMatch(ACTIVE)
    expect(JSON.parse(err.stderr).error.message).toContain(`duplicate tool name "${EVIL}"`)
  })
})
