/**
 * The layering rules `npm test` holds (tests/build/layering.test.ts cruises with them; docs/architecture.md).
 * Type-only imports count: a type pulled from a room above is still a dependency on it.
 */
const fs = require('node:fs')
const path = require('node:path')

/** The client components: every file under app/ or components/ that starts with 'use client'. */
const clientFiles = ['app', 'components'].flatMap((dir) => fs.readdirSync(path.join(__dirname, dir), { recursive: true })
  .map((f) => `${dir}/${f}`.split(path.sep).join('/'))
  .filter((f) => /[.]tsx?$/.test(f) && /^\s*['"]use client['"]/.test(fs.readFileSync(path.join(__dirname, f), 'utf8'))))
const exactly = (f) => `^${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'no import circle between files', from: {}, to: { circular: true } },
    {
      name: 'db-on-the-ground-floor', severity: 'error', comment: 'db/ imports nothing of lib/ but lib/core',
      from: { path: '^db/' }, to: { path: '^lib/', pathNot: '^lib/core/' },
    },
    {
      name: 'evaluator-is-pure', severity: 'error', comment: 'lib/preflight (the evaluator) reaches no database: no db/, drizzle-orm, better-sqlite3 or pg',
      from: { path: '^lib/preflight/' }, to: { path: ['^db/', '^node_modules/(drizzle-orm|better-sqlite3|pg)/'] },
    },
    {
      name: 'sql-only-in-db', severity: 'error', comment: 'drizzle-orm, better-sqlite3 and pg are imported in db/ only',
      from: { pathNot: ['^db/', '^(tests|bench)/'] },
      to: { path: '^node_modules/(drizzle-orm|better-sqlite3|pg)/' },
    },
    {
      name: 'app-reads-through-lib', severity: 'error',
      comment: 'app/ imports nothing of db/: a page renders what its loader in lib/dashboard/pages returns, a route handler calls lib/dashboard/api.ts',
      from: { path: '^app/' }, to: { path: '^db/' },
      },
      {
      name: 'one-sdk-generation', severity: 'error', comment: 'product code speaks MCP through the v2 SDK (@modelcontextprotocol/client and /server): the v1 package is for tests and bench only',
      from: { pathNot: '^(tests|bench)/' },
      to: { path: '(^|/)node_modules/@modelcontextprotocol/sdk/' },
      },
      {
      name: 'zod-only-in-schemas', severity: 'error', comment: 'zod schemas are built in lib/schemas only: elsewhere zod is imported for its types (import type), the schemas from lib/schemas',
      from: { pathNot: ['^lib/schemas/', '^(tests|bench)/'] },
      to: { dependencyTypesNot: ['type-only'], path: '(^|/)node_modules/zod/' },
    },
    {
      name: 'client-imports-no-server', severity: 'error', comment: "a 'use client' component imports no server module: db/, lib/server, node: builtins",
      from: { path: clientFiles.length ? clientFiles.map(exactly) : '^$' },
      to: { dependencyTypesNot: ['type-only'], path: ['^db/', '^lib/server/', '^node_modules/(drizzle-orm|better-sqlite3|pg)/'] },
    },
    {
      name: 'client-imports-no-builtin', severity: 'error', comment: "a 'use client' component imports no node: builtin",
      from: { path: clientFiles.length ? clientFiles.map(exactly) : '^$' },
      to: { dependencyTypes: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)([.]next[^/]*|data|test-results)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
}
