import { readFileSync } from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import { exitCodes, reasonSpec, reasons } from '@/lib/preflight/taxonomy'

it('docs/taxonomy.md\'s taxonomy table says what the code\'s table says', () => {
  const readme = readFileSync(path.resolve(import.meta.dirname, '../../../docs/taxonomy.md'), 'utf8')
  const section = readme.slice(readme.indexOf('<!-- taxonomy:start -->'), readme.indexOf('<!-- taxonomy:end -->'))
  const rows = section.split('\n').filter((l) => /^\| `[a-z_]+` \|/.test(l))
  const expected = reasons.map((r) => {
    const s = reasonSpec[r]
    return `| \`${r}\` | ${s.class} | ${s.retryable} | ${s.action ? `\`${s.action}\`` : '*(none)*'} | ${s.verdict} | ${exitCodes[s.verdict]} |`
  })
  expect(rows).toEqual(expected)
})
