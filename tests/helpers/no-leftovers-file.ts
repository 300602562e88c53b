// Set up before every test file (vitest setupFiles): whatever the file starts carries its name,
// and once the file's own afterAll hooks have run, nothing it started may still be running —
// a server, an upstream, a browser left behind fails the file, named, and is killed.
import path from 'node:path'
import { afterAll, expect } from 'vitest'
import { FILE_VAR, RUN_VAR, describeLeftovers, killLeftovers, lingering, suiteProcesses } from './processes'

const root = path.resolve(import.meta.dirname, '..', '..')
const file = path.relative(root, expect.getState().testPath ?? '')
process.env[FILE_VAR] = file

// registered before the file's own hooks, so it runs after them (vitest runs after-hooks in reverse)
afterAll(async () => {
  const run = process.env[RUN_VAR]
  if (!run) throw new Error(`${RUN_VAR} is not set: the suite's global setup (tests/helpers/no-leftovers-global.ts) did not run`)
  // a server told to stop may take a moment to exit: a leftover is what outlives the grace
  const left = await lingering(() => suiteProcesses(run, { file }), 10_000)
  if (!left.length) return
  killLeftovers(left)
  throw new Error(`${file} left ${left.length} process${left.length > 1 ? 'es' : ''} running after its tests (killed now):\n${describeLeftovers(left)}`)
}, 30_000)
