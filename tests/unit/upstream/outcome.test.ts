import { describe, expect, it } from 'vitest'
import { outcomeText, type ConnectionOutcome } from '@/lib/upstream/outcome'

describe('outcomeText', () => {
  // the text people read (connection detail, log, activity) is what the runtime always wrote
  const cases: [ConnectionOutcome, string][] = [
    [{ kind: 'closed', why: 'ping failed: connection refused by 127.0.0.1:9 (ECONNREFUSED)' }, 'closed: ping failed: connection refused by 127.0.0.1:9 (ECONNREFUSED)'],
    [{ kind: 'failed', why: 'the server process exited with code 3; its last stderr line: boom' }, 'failed: the server process exited with code 3; its last stderr line: boom'],
    [{ kind: 'unauthorized' }, 'unauthorized'],
    [{ kind: 'stopped' }, 'stopped'],
  ]
  it.each(cases)('%o reads %s', (outcome, text) => {
    expect(outcomeText(outcome)).toBe(text)
  })
})
