// The suite's global setup (vitest globalSetup): mark this run, and at its end fail it for any
// process of the run still alive — one that escaped the per-file check (tests/helpers/no-leftovers-file.ts).
import { randomBytes } from 'node:crypto'
import { RUN_VAR, describeLeftovers, killLeftovers, lingering, suiteProcesses } from './processes'

export default function setup() {
  // scripts/test.mjs sets the id; a bare `npx vitest run` gets one here (the workers inherit it)
  const run = (process.env[RUN_VAR] ||= `run_${process.pid}_${randomBytes(6).toString('hex')}`)
  return async () => {
    // vitest's own workers carry the id too, and are still closing down
    const isWorker = ({ ppid, command }: { ppid: number; command: string }) => ppid === process.pid && command.includes('/vitest/dist/workers/')
    const left = await lingering(() => suiteProcesses(run, { exclude: isWorker }), 5_000)
    if (!left.length) return
    killLeftovers(left)
    console.error(`\nFAILED: ${left.length} process${left.length > 1 ? 'es' : ''} of this test run still running at its end (killed now):\n${describeLeftovers(left)}\n`)
    process.exitCode = 1
  }
}
