import { afterEach, describe, expect, it } from 'vitest'
import { forTerminal, table, terminal, toJson, wrap } from '@/lib/cli/output'

describe('tables and prose fit the terminal', () => {
  const rows = [['notes:read_note', 'ready', 'a long detail that goes on and on past any narrow terminal']]

  it('a narrow terminal cuts the last column; no width (a pipe) cuts nothing', () => {
    const narrow = table(['ID', 'STATUS', 'DETAIL'], rows, { color: false, width: 40 })
    for (const line of narrow.split('\n')) expect(line.length).toBeLessThanOrEqual(40)
    expect(narrow).toContain('…')
    expect(table(['ID', 'STATUS', 'DETAIL'], rows, { color: false })).toContain('past any narrow terminal')
  })

  it('colour wraps the cell, and alignment is computed on the plain text', () => {
    const coloured = table(['ID', 'STATUS', 'DETAIL'], [['a', 'ready', 'x'], ['bb', 'fail', 'y']], { color: true }, (col, cell) => (col === 1 ? (cell === 'ready' ? 'green' : 'red') : undefined))
    expect(coloured).toContain('\x1b[32mready\x1b[39m')
    const plain = coloured.replace(/\x1b\[\d+m/g, '').split('\n')
    expect(plain[1].indexOf('x')).toBe(plain[2].indexOf('y'))
    expect(plain[0].indexOf('DETAIL')).toBe(plain[1].indexOf('x'))
  })

  it('wrap breaks prose at words to the width, indenting the following lines', () => {
    const text = 'one two three four five six seven eight nine ten eleven twelve'
    const out = wrap(text, 30, 4).split('\n')
    expect(out.length).toBeGreaterThan(1)
    for (const line of out) expect(line.length).toBeLessThanOrEqual(30)
    expect(out.slice(1).every((l) => l.startsWith('    '))).toBe(true)
    expect(wrap(text, undefined, 4)).toBe(text)
  })
})

describe('colour follows NO_COLOR, FORCE_COLOR and the terminal', () => {
  const saved = { NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR }
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v
  })

  it.each([
    [{ FORCE_COLOR: '1' }, true],
    [{ FORCE_COLOR: '1', NO_COLOR: '1' }, false],
    [{ FORCE_COLOR: '0' }, !!process.stdout.isTTY],
    [{ NO_COLOR: '' }, !!process.stdout.isTTY], // an empty NO_COLOR does not count (no-color.org)
  ])('%j → colour %s', (env, colour) => {
    delete process.env.NO_COLOR
    delete process.env.FORCE_COLOR
    Object.assign(process.env, env)
    expect(terminal().color).toBe(colour)
  })
})

describe('text from outside, printed', () => {
  it('a table cell cannot add a row or move the cursor: newlines and CR show as escapes', () => {
    const out = table(['ID', 'DETAIL'], [['a', 'fine\nb        ready\r\x1b[1A']], { color: false })
    expect(out.split('\n')).toHaveLength(2)
    expect(out).toContain('fine\\x0ab        ready\\x0d\\x1b[1A')
  })

  it('a message keeps its lines; invisible characters are named; JSON keeps its value', () => {
    expect(forTerminal('one\ntwo\x07', { lines: true })).toBe('one\ntwo\\x07')
    expect(forTerminal('a\u200bb\u{e0041}')).toBe('a⟦U+200B⟧b⟦U+E0041⟧')
    const value = { s: 'x\u009b\u202e\u{e0041}\x1b' }
    const text = toJson(value)
    expect(text).not.toMatch(/[\x1b\u009b\u202e]|\u{e0041}/u)
    expect(JSON.parse(text)).toEqual(value)
  })
})
