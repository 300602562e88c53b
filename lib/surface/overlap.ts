/**
 * Description overlap: how alike two tools read to a model choosing between them. TF-IDF
 * cosine over each tool's name, title and description — deterministic, offline, and cheap
 * enough for every pair of a thousand-tool scope. Scores are rounded to four places so a
 * report is byte-stable across runs and machines.
 */

/** Pairs at or above this cosine are listed unless the caller asks otherwise. */
export const DEFAULT_PAIR_THRESHOLD = 0.5

export interface OverlapDoc { id: string; text: string }
export interface OverlapPair { a: string; b: string; score: number; cross_server: boolean }

// Words that say nothing about what a tool does; kept short on purpose (a tool's verbs and
// nouns are its signal, so "get", "list", "file" stay).
const STOPWORDS = new Set(('a an and are as at be by can for from has have if in into is it its of on or ' +
  'such that the their them then there these this to was were will with you your which when where ' +
  'who what how do does this tool tools use used using returns return given').split(' '))

/** Words of a text: camelCase and snake_case split, lowercased, stopwords out, plurals folded. */
export function terms(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !STOPWORDS.has(w))
    .map(stem)
}

// Light stemming: enough that "notes"/"note" and "searching"/"search" meet, nothing clever.
function stem(w: string): string {
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3)
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1)
  return w
}

const serverOf = (id: string) => id.slice(0, id.indexOf(':'))
const round = (x: number) => Math.round(x * 10_000) / 10_000

/** Unit-length TF-IDF vectors (smoothed idf, so two near-identical tools alone still score high). */
function vectors(docs: readonly OverlapDoc[]): { term: number; weight: number }[][] {
  const ids = new Map<string, number>()
  const counts = docs.map((d) => {
    const tf = new Map<number, number>()
    for (const t of terms(d.text)) {
      let id = ids.get(t)
      if (id === undefined) ids.set(t, (id = ids.size))
      tf.set(id, (tf.get(id) ?? 0) + 1)
    }
    return tf
  })
  const df = new Float64Array(ids.size)
  for (const tf of counts) for (const id of tf.keys()) df[id]++
  const n = docs.length
  return counts.map((tf) => {
    const v = [...tf].map(([term, c]) => ({ term, weight: (1 + Math.log(c)) * (Math.log((1 + n) / (1 + df[term])) + 1) }))
    const norm = Math.hypot(...v.map((x) => x.weight)) || 1
    return v.map((x) => ({ term: x.term, weight: x.weight / norm })).sort((x, y) => x.term - y.term)
  })
}

/**
 * Every pair scoring at least `threshold` (the best `limit` of them), best first (ties by id),
 * and the closest pair overall. Dot products accumulate through an inverted index, so the work is
 * the sum over terms of (documents sharing the term)², not every pair times every term. A limit
 * keeps a large scope's answer small: 5,000 alike tools have a million pairs above 0.2.
 */
export function overlap(docs: readonly OverlapDoc[], threshold: number, limit = Infinity): { max: OverlapPair | null; pairs: OverlapPair[] } {
  const n = docs.length
  if (n < 2) return { max: null, pairs: [] }
  const vs = vectors(docs)
  const postings = new Map<number, { doc: number; weight: number }[]>()
  vs.forEach((v, doc) => v.forEach(({ term, weight }) => {
    let list = postings.get(term)
    if (!list) postings.set(term, (list = []))
    list.push({ doc, weight })
  }))
  // upper triangle of the similarity matrix, row-major: i < j at i*n - i*(i+1)/2 + (j-i-1)
  const dot = new Float64Array((n * (n - 1)) / 2)
  const at = (i: number, j: number) => i * n - (i * (i + 1)) / 2 + (j - i - 1)
  for (const list of postings.values()) {
    for (let x = 0; x < list.length; x++) {
      for (let y = x + 1; y < list.length; y++) dot[at(list[x].doc, list[y].doc)] += list[x].weight * list[y].weight
    }
  }
  const pair = (i: number, j: number, score: number): OverlapPair => {
    const [a, b] = docs[i].id < docs[j].id ? [docs[i].id, docs[j].id] : [docs[j].id, docs[i].id]
    return { a, b, score: round(score), cross_server: serverOf(a) !== serverOf(b) }
  }
  const byScore = (p: OverlapPair, q: OverlapPair) => q.score - p.score || (p.a < q.a ? -1 : p.a > q.a ? 1 : p.b < q.b ? -1 : p.b > q.b ? 1 : 0)
  let max: OverlapPair | null = null
  const pairs: OverlapPair[] = []
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const s = dot[at(i, j)]
      if (s >= threshold) {
        const p = pair(i, j, s)
        if (pairs.length < limit) {
          pairs.push(p)
          if (pairs.length === limit) pairs.sort(byScore) // full: kept sorted from here on
        } else if (limit > 0 && byScore(p, pairs[limit - 1]) < 0) {
          // bounded: the new pair takes the worst one's place, then moves up to where it belongs
          pairs[limit - 1] = p
          for (let k = limit - 1; k > 0 && byScore(pairs[k], pairs[k - 1]) < 0; k--) [pairs[k], pairs[k - 1]] = [pairs[k - 1], pairs[k]]
        }
      }
      if (max === null || round(s) > max.score || (round(s) === max.score && byScore(pair(i, j, s), max) < 0)) max = pair(i, j, s)
    }
  }
  return { max, pairs: pairs.sort(byScore) }
}

/** The `k` documents closest to `docs[target]`, scored within the whole set (its idf), best first. */
export function closestTo(docs: readonly OverlapDoc[], target: string, k: number): OverlapPair[] {
  const at = docs.findIndex((d) => d.id === target)
  if (at < 0) return []
  const vs = vectors(docs)
  const mine = new Map(vs[at].map((x) => [x.term, x.weight]))
  return docs
    .map((d, i) => ({ d, s: i === at ? -1 : vs[i].reduce((sum, x) => sum + x.weight * (mine.get(x.term) ?? 0), 0) }))
    .filter((x) => x.s >= 0)
    .map(({ d, s }) => {
      const [a, b] = target < d.id ? [target, d.id] : [d.id, target]
      return { a, b, score: round(s), cross_server: serverOf(a) !== serverOf(b) }
    })
    .sort((p, q) => q.score - p.score || (p.a + p.b < q.a + q.b ? -1 : 1))
    .slice(0, k)
}

/** The words two texts share (normalised as scored), for showing why a pair reads alike. */
export function sharedTerms(a: string, b: string): string[] {
  const other = new Set(terms(b))
  return [...new Set(terms(a))].filter((t) => other.has(t))
}
