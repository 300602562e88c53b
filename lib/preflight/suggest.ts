import { classifyServer, classifyTool } from './classifier'
import type { PreflightState } from '@/lib/core/state'

const MAX_SUGGESTIONS = 3
const MAX_DISTANCE = 2

/** Levenshtein distance, giving up (returning max + 1) once it must exceed `max`. */
export function editDistance(a: string, b: string, max = MAX_DISTANCE): number {
  if (Math.abs(a.length - b.length) > max) return max + 1
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
      cur.push(v)
      if (v < rowMin) rowMin = v
    }
    if (rowMin > max) return max + 1
    prev = cur
  }
  return prev[b.length]
}

/**
 * did_you_mean for a not_found id (contract §5): only tools the caller could actually use —
 * servers in scope, configured, enabled, not quarantined; tools not withheld. Prefix matches
 * first, then edit distance, then alphabetical; never the id itself. A narrowed scope's servers
 * (`reach`) are the only ones looked at: what lies outside is never read, not even to be skipped.
 */
export function didYouMean(state: PreflightState, id: string, inScope: (s: string) => boolean, quarantineEnabled: boolean, reach?: readonly string[]): string[] {
  const ranked: { cand: string; prefix: boolean; dist: number }[] = []
  for (const { server, tool } of state.nearbyToolIds(id, reach)) {
    const cand = `${server}:${tool}`
    if (cand === id || !inScope(server)) continue
    const sv = state.server(server)
    if (classifyServer(sv) !== 'ok') continue
    if (classifyTool(sv!, tool, state.tool(server, tool), quarantineEnabled) !== 'callable') continue
    const prefix = cand.startsWith(id) || id.startsWith(cand)
    const dist = editDistance(id, cand)
    if (prefix || dist <= MAX_DISTANCE) ranked.push({ cand, prefix, dist })
  }
  ranked.sort((a, b) => Number(b.prefix) - Number(a.prefix) || a.dist - b.dist || (a.cand < b.cand ? -1 : a.cand > b.cand ? 1 : 0))
  return ranked.slice(0, MAX_SUGGESTIONS).map((r) => r.cand)
}
