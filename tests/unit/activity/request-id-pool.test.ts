import { describe, expect, it } from 'vitest'
import { IDS_PER_FILL, mintRequestId } from '@/lib/activity/request-id'

const MINTED = /^req_[0-9A-HJKMNP-TV-Z]{26}$/ // Crockford base32: no I, L, O or U
const NOW = Date.parse('2026-12-04T02:00:00Z')

describe('minted request ids, their random part drawn from a pool refilled in bulk', () => {
  it('keep their format and never repeat across several refills', () => {
    // one instant: only the random part tells them apart, so a pool reused unrefilled, or read past its end, would repeat or garble an id
    const ids = Array.from({ length: 3 * IDS_PER_FILL + 3 }, () => mintRequestId(NOW))
    for (const id of ids) expect(id).toMatch(MINTED)
    expect(new Set(ids).size).toBe(ids.length)
    expect(new Set(ids.map((id) => id.slice(0, 14)))).toEqual(new Set([ids[0].slice(0, 14)]))
  })

  it('spread each random character over the alphabet, on both sides of a refill', () => {
    const ids = Array.from({ length: 2 * IDS_PER_FILL }, () => mintRequestId(NOW))
    for (const half of [ids.slice(0, IDS_PER_FILL), ids.slice(IDS_PER_FILL)]) {
      for (let pos = 14; pos < 30; pos++) {
        // 256 uniform draws from 32 characters: all but a few appear (fewer than 24 has odds far below 1e-9)
        expect(new Set(half.map((id) => id[pos])).size).toBeGreaterThanOrEqual(24)
      }
    }
  })
})
