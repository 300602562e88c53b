import { describe, expect, it } from 'vitest'
import { overlap, sharedTerms, terms } from '@/lib/surface/overlap'

const docs = [
  { id: 'kb:find_notes', text: 'find_notes Search the knowledge base notes by keyword and return matching notes' },
  { id: 'wiki:search_notes', text: 'search_notes Search notes in the knowledge base by keyword, returning the matching notes' },
  { id: 'kb:delete_note', text: 'delete_note Permanently delete one note by its id' },
  { id: 'billing:get_invoice', text: 'get_invoice Fetch a customer invoice PDF by invoice number' },
  { id: 'ops:restart_pod', text: 'restart_pod Restart a Kubernetes pod in a namespace' },
]

describe('description overlap', () => {
  it('ranks a near-duplicate pair first and unrelated tools near zero, flagging pairs across servers', () => {
    const r = overlap(docs, 0.3)
    expect(r.max).toMatchObject({ a: 'kb:find_notes', b: 'wiki:search_notes', cross_server: true })
    expect(r.max!.score).toBeGreaterThan(0.6)
    expect(r.pairs[0]).toEqual(r.max)
    const score = (a: string, b: string) => overlap(docs, 0).pairs.find((p) => (p.a === a && p.b === b) || (p.a === b && p.b === a))!.score
    expect(score('billing:get_invoice', 'ops:restart_pod')).toBeLessThan(0.05)
    // sharing "note" ranks a same-server pair between the duplicates and the unrelated ones
    const related = score('kb:delete_note', 'kb:find_notes')
    expect(related).toBeGreaterThan(score('billing:get_invoice', 'ops:restart_pod'))
    expect(related).toBeLessThan(r.max!.score)
    expect(overlap(docs, 0).pairs.find((p) => p.a === 'kb:delete_note' && p.b === 'kb:find_notes')!.cross_server).toBe(false)
  })

  it('lists every pair at or above the threshold, best first, and nothing below it', () => {
    const all = overlap(docs, 0).pairs
    expect(all).toHaveLength((docs.length * (docs.length - 1)) / 2)
    expect(all.map((p) => p.score)).toEqual([...all.map((p) => p.score)].sort((a, b) => b - a))
    const some = overlap(docs, 0.2).pairs
    expect(some.every((p) => p.score >= 0.2)).toBe(true)
    expect(some).toEqual(all.filter((p) => p.score >= 0.2))
  })

  it('with a limit keeps exactly the best pairs, in order, and still finds the closest pair', () => {
    const all = overlap(docs, 0).pairs
    for (const limit of [0, 1, 3, all.length, all.length + 5]) {
      const r = overlap(docs, 0, limit)
      expect(r.pairs, `limit ${limit}`).toEqual(all.slice(0, limit))
      expect(r.max).toEqual(all[0])
    }
    // shuffled input reaches the same kept pairs (the bounded list replaces and reorders as it goes)
    expect(overlap([...docs].reverse(), 0, 4).pairs).toEqual(all.slice(0, 4))
  })

  it('is the same on every run and whatever the input order', () => {
    const once = JSON.stringify(overlap(docs, 0))
    expect(JSON.stringify(overlap(docs, 0))).toBe(once)
    expect(JSON.stringify(overlap([...docs].reverse(), 0))).toBe(once)
  })

  it('scores identical descriptions 1, and has no pair with fewer than two tools', () => {
    expect(overlap([{ id: 'a:x', text: 'Send an email' }, { id: 'b:y', text: 'Send an email' }], 0.5).max).toEqual({ a: 'a:x', b: 'b:y', score: 1, cross_server: true })
    expect(overlap([{ id: 'a:x', text: 'Send an email' }], 0.5)).toEqual({ max: null, pairs: [] })
  })

  it('normalises words the way it scores them', () => {
    expect(terms('findNotes search_notes: Searching the NOTES')).toEqual(['find', 'note', 'search', 'note', 'search', 'note'])
    expect(sharedTerms('Search the knowledge base notes', 'search_notes in a knowledge base')).toEqual(['search', 'knowledge', 'base', 'note'])
  })
})
