import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { exitCodes, precedence, reasons, taxonomy, worstVerdict } from '@/lib/preflight/taxonomy'

// The contract's table is the specification; the code's table must say the same, row by row.
const contract = readFileSync(path.resolve(__dirname, '../../../docs/spec/preflight-contract.md'), 'utf8')
const rows = contract.split('\n')
  .filter((l) => /^\| `[a-z_]+` \|/.test(l))
  .map((l) => l.split('|').slice(1, -1).map((c) => c.trim()))
  .map(([reason, cls, retryable, action, verdict, exit]) => ({
    reason: reason.replace(/`/g, ''),
    cls,
    retryable: retryable === 'true',
    action: action.startsWith('*(none)') ? undefined : /`([a-z_]+)`/.exec(action)![1],
    verdict,
    exit: Number(exit),
  }))

describe('the reason taxonomy', () => {
  it('has exactly the contract\'s 15 codes, in its order', () => {
    expect(rows).toHaveLength(15)
    expect(reasons).toEqual(rows.map((r) => r.reason))
    expect(reasons).not.toContain('server_saturated')
  })

  it.each(rows)('$reason matches the contract row', (row) => {
    const spec = taxonomy[row.reason as keyof typeof taxonomy]
    expect(spec.class).toBe(row.cls)
    expect(spec.retryable).toBe(row.retryable)
    expect('action' in spec ? spec.action : undefined).toBe(row.action)
    expect(spec.verdict).toBe(row.verdict)
    expect(exitCodes[spec.verdict]).toBe(row.exit)
  })

  it('keeps the precedence chain as data, exactly as the contract (§3) writes it', () => {
    const block = /## 3\. Precedence[\s\S]*?```\n([\s\S]*?)```/.exec(contract)![1]
    const chain = block.match(/[a-z]+(?:_[a-z]+)+/g) // every reason code, in the order written
    expect([...precedence]).toEqual(chain)
    expect([...precedence].sort()).toEqual([...reasons].sort()) // every code has its place, once
  })

  it('words server_unhealthy\'s fix after the diagnosed action', () => {
    const fix = (action?: 'restart' | 'login' | 'set_secret' | 'view_logs') => taxonomy.server_unhealthy.remediation({ id: 's:t', server: 's', tool: 't', action })
    expect(fix()).toBe('Read its logs: toolgate upstream logs s')
    expect(fix('restart')).toBe('Restart the server: toolgate upstream restart s')
    expect(fix('login')).toBe(taxonomy.oauth_required.remediation({ id: 's:t', server: 's', tool: 't' }))
    expect(fix('set_secret')).toBe('Set the secret: toolgate upstream set-secret s <NAME>')
  })

  it('orders the set verdict worst class first', () => {
    expect(worstVerdict([])).toBe('ready')
    expect(worstVerdict(['ready', 'degraded_retryable'])).toBe('degraded_retryable')
    expect(worstVerdict(['degraded_retryable', 'blocked', 'ready'])).toBe('blocked')
    expect(worstVerdict(['blocked', 'unknown_ids', 'degraded_retryable'])).toBe('unknown_ids')
    expect(exitCodes).toEqual({ ready: 0, degraded_retryable: 10, blocked: 11, unknown_ids: 12 })
  })
})
