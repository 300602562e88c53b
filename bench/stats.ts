/** Timing helpers for the benchmarks: run a function many times, report p50/p95 in ms. */
export interface Row { name: string; p50: number; p95: number; p99: number; n: number; note?: string }

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

export function summarize(name: string, samples: number[], note?: string): Row {
  const s = [...samples].sort((a, b) => a - b)
  return { name, p50: percentile(s, 50), p95: percentile(s, 95), p99: percentile(s, 99), n: s.length, note }
}

export function timeSync(name: string, n: number, fn: (i: number) => void, warmup = Math.min(200, n)): Row {
  for (let i = 0; i < warmup; i++) fn(i)
  const samples: number[] = []
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    fn(i)
    samples.push(performance.now() - t)
  }
  return summarize(name, samples)
}

/**
 * Time several functions interleaved (a, b, a, b, …) so machine noise falls on each alike
 * and the ratio between them is fair.
 */
export function timeInterleaved(n: number, fns: Record<string, (i: number) => void>): Row[] {
  const entries = Object.entries(fns)
  for (let i = 0; i < Math.min(200, n); i++) for (const [, fn] of entries) fn(i)
  const samples = entries.map(() => [] as number[])
  for (let i = 0; i < n; i++) {
    entries.forEach(([, fn], k) => {
      const t = performance.now()
      fn(i)
      samples[k].push(performance.now() - t)
    })
  }
  return entries.map(([name], k) => summarize(name, samples[k]))
}

export async function timeAsync(name: string, n: number, fn: (i: number) => Promise<unknown>, warmup = Math.min(50, n)): Promise<Row> {
  for (let i = 0; i < warmup; i++) await fn(i)
  const samples: number[] = []
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    await fn(i)
    samples.push(performance.now() - t)
  }
  return summarize(name, samples)
}

/**
 * Time async functions interleaved (a, b, c, then b, c, a, then c, a, b …) so loopback noise
 * falls on each alike, and none always runs first or right after the same other.
 */
export async function timeInterleavedAsync(n: number, fns: Record<string, (i: number) => Promise<unknown>>, warmup = 50): Promise<Row[]> {
  const entries = Object.entries(fns)
  for (let i = 0; i < warmup; i++) for (const [, fn] of entries) await fn(i)
  const samples = entries.map(() => [] as number[])
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < entries.length; j++) {
      const k = (i + j) % entries.length
      const t = performance.now()
      await entries[k][1](i)
      samples[k].push(performance.now() - t)
    }
  }
  return entries.map(([name], k) => summarize(name, samples[k]))
}

/** One target line: what was asked, what was measured, met or not. Reported, never asserted. */
export function printTarget(what: string, measured: string, met: boolean): void {
  console.log(`  target ${met ? 'met   ' : 'MISSED'}  ${what}: ${measured}`)
}

export const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`)

export function printTable(title: string, rows: Row[], baseline?: Row): void {
  console.log(`\n## ${title}`)
  const lines = rows.map((r) => {
    const ratio = baseline && r !== baseline ? `  ${(r.p50 / baseline.p50).toFixed(2)}× / ${(r.p95 / baseline.p95).toFixed(2)}× baseline p50 / p95` : ''
    return `${r.name.padEnd(62)} p50 ${fmt(r.p50).padStart(9)}  p95 ${fmt(r.p95).padStart(9)}  p99 ${fmt(r.p99).padStart(9)}  n=${r.n}${ratio}${r.note ? `  (${r.note})` : ''}`
  })
  console.log(lines.join('\n'))
}
