import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runProcess } from '@/tests/helpers/cli'
import { demoState, EXTENSION_ID, expectValidFacet, recordsFor, startHarness, type Harness } from './harness'

// docs/mcp.md's in-band section is executed as written (only the base URL changes), so the
// snippets a user pastes can never rot.
const root = path.resolve(__dirname, '..', '..')
const readme = readFileSync(path.join(root, 'docs', 'mcp.md'), 'utf8')
const section = readme.slice(readme.indexOf('<!-- in-band:start -->'), readme.indexOf('<!-- in-band:end -->'))
const blocks = (lang: string) => [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1])
const README_BASE = 'http://127.0.0.1:3000'

const run = (cmd: string, args: string[], cwd: string) => runProcess(cmd, args, { cwd })

let h: Harness
beforeAll(async () => {
  h = await startHarness(demoState())
})
afterAll(async () => {
  await h?.server.stop()
})

describe('docs/mcp.md: in-band section', () => {
  it('has exactly one curl block and one SDK block, both aimed at the default local server', async () => {
    expect(blocks('bash')).toHaveLength(1)
    expect(blocks('js')).toHaveLength(1)
    expect(blocks('bash')[0]).toContain(`curl -s ${README_BASE}/mcp`)
    expect(blocks('js')[0]).toContain(`'${README_BASE}/mcp'`)
  })

  it('the curl request, pasted into a shell, returns the facet the doc shows', async () => {
    const script = blocks('bash')[0].replaceAll(README_BASE, h.server.url)
    const r = await run('bash', ['-c', script], root)
    expect(r.code, r.stderr).toBe(0)
    const body = JSON.parse(r.stdout)
    const facet = body.result._meta[EXTENSION_ID]
    expectValidFacet(facet)
    const shown = JSON.parse(blocks('json')[0])
    expect(facet.verdict).toBe(shown.verdict)
    expect(facet.tools).toEqual(shown.tools)
    expect(recordsFor(h.db, facet.request_id)).toMatchObject([{ surface: 'mcp-shape-a' }])
  })

  it('the SDK example, saved as preflight.mjs and run with node, prints the verdicts and exits 1 (blocked)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-readme-'))
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules')) // as if installed there
    writeFileSync(path.join(dir, 'preflight.mjs'), blocks('js')[0].replaceAll(README_BASE, h.server.url))
    const r = await run(process.execPath, ['preflight.mjs'], dir)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(1)
    const lines = r.stdout.trim().split('\n')
    expect(lines[0]).toBe('notes:read_note ready  ')
    expect(lines[1]).toBe('notes:export_notes unavailable tool_pending_approval Review and approve: toolgate tools approve notes:export_notes')
    const requestId = /^verdict: blocked \(request_id (\S+)\)$/.exec(lines[2])![1]
    expect(recordsFor(h.db, requestId)).toMatchObject([{ surface: 'mcp-shape-a', tier: 'agent' }])
  })

  it('the same snippet exits 0 once every tool is ready', async () => {
    const s = demoState()
    s.servers![0].tools!.find((t) => t.name === 'export_notes')!.approval = { status: 'approved', disabled: false }
    await h.reload(s)
    const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-readme-'))
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'))
    writeFileSync(path.join(dir, 'preflight.mjs'), blocks('js')[0].replaceAll(README_BASE, h.server.url))
    const r = await run(process.execPath, ['preflight.mjs'], dir)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('verdict: ready')
  })
})
