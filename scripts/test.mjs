// The test command: build the app (integration tests run `next start`), run every test,
// then end with one plain line "N passed, N failed" that CI reads.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')
// The tests' own build folder: a toolgate started with `npm start` keeps serving from .next while
// the tests build and run beside it (a build into its folder would break every page it serves).
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NEXT_DIST_DIR: process.env.NEXT_DIST_DIR || '.next-test' }
const run = (cmd, args) => spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env })

if (process.env.TOOLGATE_SKIP_BUILD !== '1') {
  const build = run(process.execPath, ['node_modules/next/dist/bin/next', 'build'])
  if (build.status !== 0) {
    console.log('0 passed, 1 failed')
    process.exit(1)
  }
}

// The conformance suite (tests/oauth) and the Node 22 it needs live in their own package, so
// that Node never shadows the project's on PATH: install it from its lockfile when missing.
const conformance = path.join(root, 'tests', 'oauth', 'conformance')
if (!existsSync(path.join(conformance, 'node_modules', '.bin', 'conformance'))) {
  const install = run('npm', ['ci', '--prefix', conformance, '--no-audit', '--no-fund'])
  if (install.status !== 0) {
    console.log('0 passed, 1 failed')
    process.exit(1)
  }
}

const report = path.join(root, 'test-results', 'vitest.json')
mkdirSync(path.dirname(report), { recursive: true })
rmSync(report, { force: true })
const vitest = run(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)])

let passed = 0
let failed = 0
if (existsSync(report)) {
  const r = JSON.parse(readFileSync(report, 'utf8'))
  passed = r.numPassedTests
  failed = r.numFailedTests + (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0)
  // a suite that failed to load has no tests counted; count it as a failure
  failed += r.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length
} else {
  failed = 1
}
console.log(`${passed} passed, ${failed} failed`)
process.exit(vitest.status === 0 && failed === 0 ? 0 : 1)
