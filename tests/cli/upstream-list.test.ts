import { describe, expect, it } from 'vitest'
import { runCli } from '@/tests/helpers/cli'
import { demoDbFile } from './helpers'

describe('upstream list', () => {
  it('a state-file server with nothing behind it says its calls are refused, as preflight does, not just the state it was given', async () => {
    const file = await demoDbFile()
    const listed = await runCli(['upstream', 'list', '--db', file])
    expect(listed.code, listed.stderr).toBe(0)
    const docs = listed.stdout.split('\n').find((l) => l.startsWith('docs '))
    expect(docs).toMatch(/\(state file\).*nothing to call \(no command or URL\): its calls are refused/)
    const checked = await runCli(['tools', 'preflight', 'docs:lookup', '--db', file])
    expect(checked.stdout).toMatch(/server_unhealthy.*no command or URL/)
    // a server that has a command is not described so
    expect(listed.stdout.split('\n').find((l) => l.startsWith('notes '))).not.toMatch(/nothing to call/)
  }, 60_000)
})
