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

// A text's distinct terms with their counts, in order of first use: the same tools are scored in
// many scopes (bounded: a few catalogs' worth, then afresh)
const KEPT_TEXTS = 20_000
const keptCounts = new Map<string, [string, number][]>()
function termCounts(text: string): [string, number][] {
  let counts = keptCounts.get(text)
  if (!counts) {
    const tf = new Map<string, number>()
    for (const t of terms(text)) tf.set(t, (tf.get(t) ?? 0) + 1)
    if (keptCounts.size >= KEPT_TEXTS) keptCounts.clear()
    keptCounts.set(text, (counts = [...tf]))
  }
  return counts
}

/** Unit-length TF-IDF vectors (smoothed idf, so two near-identical tools alone still score high). */
function vectors(docs: readonly OverlapDoc[]): { term: number; weight: number }[][] {
  const ids = new Map<string, number>()
  const counts = docs.map((d) => {
    const tf = new Map<number, number>()
    for (const [t, c] of termCounts(d.text)) {
      let id = ids.get(t)
      if (id === undefined) ids.set(t, (id = ids.size))
      tf.set(id, c)
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
 * The vectors packed flat, each document's terms ascending, with an inverted index (each term's
 * documents ascending) that says where each document's entry sits in its term's list.
 */
function packed(docs: readonly OverlapDoc[]) {
  const vs = vectors(docs)
  const n = docs.length
  const start = new Int32Array(n + 1)
  vs.forEach((v, i) => (start[i + 1] = start[i] + v.length))
  const term = new Int32Array(start[n])
  const weight = new Float64Array(start[n])
  let terms = 0
  vs.forEach((v, i) => v.forEach((x, k) => {
    term[start[i] + k] = x.term
    weight[start[i] + k] = x.weight
    terms = Math.max(terms, x.term + 1)
  }))
  const listStart = new Int32Array(terms + 1)
  for (let e = 0; e < term.length; e++) listStart[term[e] + 1]++
  for (let t = 0; t < terms; t++) listStart[t + 1] += listStart[t]
  const fill = listStart.slice(0, terms)
  const listDoc = new Int32Array(term.length)
  const listWeight = new Float64Array(term.length)
  const slot = new Int32Array(term.length) // entry e's place in its term's list
  for (let i = 0; i < n; i++) {
    for (let e = start[i]; e < start[i + 1]; e++) {
      const q = fill[term[e]]++
      listDoc[q] = i
      listWeight[q] = weight[e]
      slot[e] = q
    }
  }
  return { start, term, weight, listStart, listDoc, listWeight, slot }
}

const compareIds = (a: string, b: string, c: string, d: string) => (a < c ? -1 : a > c ? 1 : b < d ? -1 : b > d ? 1 : 0)
const byScore = (p: OverlapPair, q: OverlapPair) => q.score - p.score || compareIds(p.a, p.b, q.a, q.b)

/**
 * Every pair scoring at least `threshold` (the best `limit` of them), best first (ties by id),
 * and the closest pair overall. One document at a time, its dot products with every later
 * document accumulate through an inverted index into one row (the work is the sum over terms of
 * (documents sharing the term)², in memory linear in the documents), summed in ascending term
 * order so every score is the same to the last bit however it is reached (pairsWith). A limit
 * keeps a large scope's answer small: 5,000 alike tools have a million pairs above 0.2.
 */
export function overlap(docs: readonly OverlapDoc[], threshold: number, limit = Infinity): { max: OverlapPair | null; pairs: OverlapPair[] } {
  const n = docs.length
  if (n < 2) return { max: null, pairs: [] }
  const { start, weight, term, listStart, listDoc, listWeight, slot } = packed(docs)
  const pair = (i: number, j: number, score: number): OverlapPair => {
    const [a, b] = docs[i].id < docs[j].id ? [docs[i].id, docs[j].id] : [docs[j].id, docs[i].id]
    return { a, b, score: round(score), cross_server: serverOf(a) !== serverOf(b) }
  }
  // whether (i, j) sorts before `p` among pairs of the same score
  const before = (i: number, j: number, p: OverlapPair) => {
    const x = docs[i].id
    const y = docs[j].id
    return (x < y ? compareIds(x, y, p.a, p.b) : compareIds(y, x, p.a, p.b)) < 0
  }
  let max: OverlapPair | null = null
  const pairs: OverlapPair[] = []
  const row = new Float64Array(n)
  for (let i = 0; i < n - 1; i++) {
    for (let e = start[i]; e < start[i + 1]; e++) {
      const w = weight[e]
      for (let q = slot[e] + 1, end = listStart[term[e] + 1]; q < end; q++) row[listDoc[q]] += w * listWeight[q]
    }
    for (let j = i + 1; j < n; j++) {
      const s = row[j]
      row[j] = 0
      if (s >= threshold && limit > 0) {
        if (pairs.length < limit) {
          pairs.push(pair(i, j, s))
          if (pairs.length === limit) pairs.sort(byScore) // full: kept sorted from here on
        } else {
          const worst = pairs[limit - 1]
          const r = round(s)
          if (r > worst.score || (r === worst.score && before(i, j, worst))) {
            // bounded: the new pair takes the worst one's place, then moves up to where it belongs
            pairs[limit - 1] = pair(i, j, s)
            for (let k = limit - 1; k > 0 && byScore(pairs[k], pairs[k - 1]) < 0; k--) [pairs[k], pairs[k - 1]] = [pairs[k - 1], pairs[k]]
          }
        }
      }
      // a score more than a rounding step below the closest one so far cannot replace it
      if (max === null) max = pair(i, j, s)
      else if (s + 0.0001 >= max.score) {
        const r = round(s)
        if (r > max.score || (r === max.score && before(i, j, max))) max = pair(i, j, s)
      }
    }
  }
  return { max, pairs: pairs.sort(byScore) }
}

/**
 * The pairs `overlap` would score at least `threshold` that involve one of `ids`, best first,
 * without scoring the others: what adding a few tools to a large list brings (each is scored
 * against every document, so the work is linear in the list).
 */
export function pairsWith(docs: readonly OverlapDoc[], ids: ReadonlySet<string>, threshold: number): OverlapPair[] {
  const { start, weight, term } = packed(docs)
  const found: OverlapPair[] = []
  docs.forEach((d, i) => {
    if (!ids.has(d.id)) return
    for (let j = 0; j < docs.length; j++) {
      if (j === i || (j < i && ids.has(docs[j].id))) continue // a pair of two of them once
      const [x, y] = j < i ? [j, i] : [i, j]
      // the shared terms in ascending order, as overlap sums them
      let s = 0
      for (let e = start[x], f = start[y]; e < start[x + 1] && f < start[y + 1];) {
        if (term[e] < term[f]) e++
        else if (term[e] > term[f]) f++
        else s += weight[e++] * weight[f++]
      }
      if (s < threshold) continue
      const [a, b] = docs[x].id < docs[y].id ? [docs[x].id, docs[y].id] : [docs[y].id, docs[x].id]
      found.push({ a, b, score: round(s), cross_server: serverOf(a) !== serverOf(b) })
    }
  })
  return found.sort(byScore)
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
