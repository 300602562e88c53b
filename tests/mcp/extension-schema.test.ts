import { describe, expect, it } from 'vitest'
import {
  facetSchema, legacySettings, MAX_RIDER_TOOLS, parseRider, resolveFacetSchema, RiderError, riderSchema, serverSettings, wireReasons,
} from '@/lib/schemas/extension'
import { shapeAFacet, shapeBFacet, wireResult } from '@/lib/mcp/wire'
import { reasons } from '@/lib/preflight/taxonomy'
import { sharedValidators } from './harness'

// toolgate's own copy of the rules it emits must judge exactly as the shared JSON Schema does.

const checkedAt = '2026-08-19T09:00:00Z'
const nf = { status: 'unavailable', reason: 'not_found', retryable: false, action: 'configure', detail: 'd', remediation: 'r' }
const facets: [string, unknown, boolean][] = [
  ['ready entry', { verdict: 'ready', checked_at: checkedAt, request_id: 'req_1', tools: [{ id: 'a:b', status: 'ready' }] }, true],
  ['full unavailable entry', { verdict: 'blocked', checked_at: checkedAt, tools: [{ id: 'a:b', status: 'unavailable', reason: 'tool_changed', retryable: false, action: 'approve', detail: 'd', remediation: 'r' }] }, true],
  ['not_found with suggestions', { verdict: 'unknown_ids', checked_at: '2026-08-19T09:00:00.123+02:00', tools: [{ id: 'a:c', ...nf, did_you_mean: ['a:b', 'a:d', 'a:e'] }] }, true],
  ['retryable code', { verdict: 'degraded_retryable', checked_at: checkedAt, tools: [{ id: 'a:b', status: 'unavailable', reason: 'server_initializing', retryable: true }] }, true],
  ['ready with a reason', { verdict: 'ready', checked_at: checkedAt, tools: [{ id: 'a:b', status: 'ready', reason: 'not_found' }] }, false],
  ['ready with a hash', { verdict: 'ready', checked_at: checkedAt, tools: [{ id: 'a:b', status: 'ready', hash: 'sha256/v1:00' }] }, false],
  ['unavailable without retryable', { verdict: 'blocked', checked_at: checkedAt, tools: [{ id: 'a:b', status: 'unavailable', reason: 'tool_changed' }] }, false],
  ['retryable code marked not retryable', { verdict: 'degraded_retryable', checked_at: checkedAt, tools: [{ id: 'a:b', status: 'unavailable', reason: 'server_unhealthy', retryable: false }] }, false],
  ['fix-state code marked retryable', { verdict: 'blocked', checked_at: checkedAt, tools: [{ id: 'a:b', status: 'unavailable', reason: 'oauth_required', retryable: true }] }, false],
  ['suggestions on another code', { verdict: 'blocked', checked_at: checkedAt, tools: [{ id: 'a:b', status: 'unavailable', reason: 'tool_changed', retryable: false, did_you_mean: ['a:c'] }] }, false],
  ['four suggestions', { verdict: 'unknown_ids', checked_at: checkedAt, tools: [{ id: 'a:c', ...nf, did_you_mean: ['1', '2', '3', '4'] }] }, false],
  ['server_not_in_scope on the wire', { verdict: 'blocked', checked_at: checkedAt, tools: [{ id: 'a:b', status: 'unavailable', reason: 'server_not_in_scope', retryable: false }] }, false],
  ['hash_mismatch on the wire', { verdict: 'blocked', checked_at: checkedAt, tools: [{ id: 'a:b', status: 'unavailable', reason: 'hash_mismatch', retryable: false }] }, false],
  ['an unknown action', { verdict: 'blocked', checked_at: checkedAt, tools: [{ id: 'a:b', status: 'unavailable', reason: 'tool_changed', retryable: false, action: 'none' }] }, false],
  ['entry without id', { verdict: 'ready', checked_at: checkedAt, tools: [{ status: 'ready' }] }, false],
  ['no entries', { verdict: 'ready', checked_at: checkedAt, tools: [] }, false],
  ['unknown verdict', { verdict: 'fine', checked_at: checkedAt, tools: [{ id: 'a:b', status: 'ready' }] }, false],
  ['no checked_at', { verdict: 'ready', tools: [{ id: 'a:b', status: 'ready' }] }, false],
  ['checked_at not a date-time', { verdict: 'ready', checked_at: 'yesterday', tools: [{ id: 'a:b', status: 'ready' }] }, false],
  ['an extra top-level field', { verdict: 'ready', checked_at: checkedAt, waited_ms: 0, tools: [{ id: 'a:b', status: 'ready' }] }, false],
]

const resolveFacets: [string, unknown, boolean][] = [
  ['ready', { status: 'ready' }, true],
  ['unhealthy with restart', { status: 'unavailable', reason: 'server_unhealthy', retryable: true, action: 'restart', detail: 'd', remediation: 'r' }, true],
  ['with an id', { id: 'a:b', status: 'ready' }, false],
  ['unavailable without reason', { status: 'unavailable', retryable: false }, false],
]

const riders: [string, unknown][] = [
  ['minimal', { tools: [{ id: 'a:b' }] }],
  ['with policy', { tools: [{ id: 'a:b' }, { id: 'a:b' }], policy: { read_only_only: true, exclude_destructive: false, exclude_open_world: true } }],
  ['50 entries', { tools: Array.from({ length: 50 }, (_, i) => ({ id: `a:${i}` })) }],
  ['51 entries', { tools: Array.from({ length: 51 }, (_, i) => ({ id: `a:${i}` })) }],
  ['empty', { tools: [] }],
  ['no tools', { policy: {} }],
  ['an empty id', { tools: [{ id: '' }] }],
  ['a numeric id', { tools: [{ id: 1 }] }],
  ['policy member not boolean', { tools: [{ id: 'a:b' }], policy: { read_only_only: 1 } }],
  ['unknown policy member', { tools: [{ id: 'a:b' }], policy: { x: true } }],
  ['reserved wait_ms', { tools: [{ id: 'a:b' }], wait_ms: 0 }],
  ['reserved pin_hash on an entry', { tools: [{ id: 'a:b', pin_hash: 'x' }] }],
]

describe("toolgate's copy of the extension schema", () => {
  it('emits exactly the shared wire subset of reason codes, all from the taxonomy', () => {
    expect([...wireReasons].sort()).toEqual([...sharedValidators.wireReasons].sort())
    for (const r of wireReasons) expect(reasons).toContain(r)
    expect(wireReasons).not.toContain('server_not_in_scope')
    expect(wireReasons).not.toContain('server_not_configured')
    expect(wireReasons).not.toContain('hash_mismatch')
  })

  it('advertises settings the shared schema accepts', () => {
    expect(sharedValidators.settings(serverSettings)).toBe(true)
    expect(sharedValidators.settings(legacySettings)).toBe(true)
    expect(serverSettings).toEqual({ version: 1, max_tools: MAX_RIDER_TOOLS })
  })

  it.each(facets)('Shape A facet, %s: shared schema and own copy agree (valid: %s)', (_name, facet, valid) => {
    expect(sharedValidators.responseFacet(facet)).toBe(valid)
    expect(facetSchema.safeParse(facet).success).toBe(valid)
  })

  it.each(resolveFacets)('Shape B facet, %s: shared schema and own copy agree (valid: %s)', (_name, facet, valid) => {
    expect(sharedValidators.resolveFacet(facet)).toBe(valid)
    expect(resolveFacetSchema.safeParse(facet).success).toBe(valid)
  })

  it.each(riders)('rider, %s: the server accepts exactly what the shared schema accepts', (_name, rider) => {
    const shared = sharedValidators.requestRider(rider)
    expect(riderSchema.safeParse(rider).success).toBe(shared)
    const accepted = (() => {
      try {
        parseRider(rider)
        return true
      } catch (e) {
        expect(e).toBeInstanceOf(RiderError)
        return false
      }
    })()
    expect(accepted).toBe(shared)
  })
})

describe('the wire projection', () => {
  it('never carries a hash, even from an operator-tier result', () => {
    expect(wireResult({ id: 'a:b', status: 'ready', hash: 'sha256/v1:' + 'a'.repeat(64) })).toEqual({ id: 'a:b', status: 'ready' })
    expect(shapeBFacet({ id: 'a:b', status: 'ready', hash: 'sha256/v1:' + 'a'.repeat(64) })).toEqual({ status: 'ready' })
  })

  it('refuses an off-wire code rather than emit it', () => {
    expect(() => wireResult({ id: 'a:b', status: 'unavailable', reason: 'server_not_in_scope', retryable: false, action: 'configure', detail: 'd', remediation: 'r' }))
      .toThrow(/server_not_in_scope cannot appear on the MCP surface/)
  })

  it('keeps field order and omits an absent action and empty suggestions', () => {
    const facet = shapeAFacet({
      verdict: 'blocked', checked_at: checkedAt, request_id: 'req_x',
      tools: [{ id: 'a:b', status: 'unavailable', reason: 'policy_filtered', retryable: false, detail: 'd', remediation: 'r', did_you_mean: [] }],
    })
    expect(JSON.stringify(facet)).toBe('{"verdict":"blocked","checked_at":"2026-08-19T09:00:00Z","request_id":"req_x","tools":[{"id":"a:b","status":"unavailable","reason":"policy_filtered","retryable":false,"detail":"d","remediation":"r"}]}')
    expect(sharedValidators.responseFacet(facet)).toBe(true)
  })
})
