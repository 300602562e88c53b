import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '..', '..')
const chunks = path.join(root, process.env.NEXT_DIST_DIR || '.next', 'static', 'chunks')

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    return e.isDirectory() ? jsFiles(p) : e.name.endsWith('.js') ? [p] : []
  })
}

/** What must never reach a browser: the ORM, the SQLite driver, and the schema's table and column names. */
const forbidden = ['drizzle-orm', 'better-sqlite3', 'sqliteTable', 'server_secrets', 'operator_key_hash', 'token_hash', 'server_oauth', 'operator_sessions']

describe('the client bundle', () => {
  it('holds no database code and no schema (every built client chunk is scanned)', () => {
    if (!existsSync(chunks)) throw new Error(`no Next.js build at ${chunks}: run \`npm run build\` (npm test does it) first`)
    const files = jsFiles(chunks)
    expect(files.length).toBeGreaterThan(5)
    const hits = files.flatMap((f) => {
      const text = readFileSync(f, 'utf8')
      return forbidden.filter((word) => text.includes(word)).map((word) => `${path.relative(root, f)}: ${word}`)
    })
    expect(hits).toEqual([])
  })
})
