import { describe, expect, it } from 'vitest'
import { runCli } from '@/tests/helpers/cli'
import { demoDbFile } from './helpers'

describe('activity list', () => {
  it('says why a list is empty beside the table (a request id nothing was recorded under), and keeps JSON a bare array', async () => {
    const file = await demoDbFile()
    const table = await runCli(['activity', 'list', '--request-id', 'req_nope', '--db', file])
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout).toMatch(/^ID\s+TIME\s+REQUEST_ID/)
    expect(table.stderr).toContain('nothing was recorded under request id req_nope in this database')
    const json = await runCli(['activity', 'list', '--request-id', 'req_nope', '-o', 'json', '--db', file])
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual([])
    expect(json.stderr).toBe('')
    // records there: no note
    const some = await runCli(['activity', 'list', '--limit', '1', '--db', file])
    expect(some.stderr).toBe('')
  }, 60_000)
})
