// The loader hooks of trace-loads.mjs (they run on the loader's own thread).
import { appendFileSync } from 'node:fs'

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context)
  appendFileSync(process.env.TOOLGATE_TRACE_LOADS, `${r.url}\n`)
  return r
}
