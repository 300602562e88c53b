// Preloaded with `node --import` by tests that check what a CLI call loads: every module URL the
// ES loader resolves, and every CommonJS file in the require cache at exit, are appended to the
// file $TOOLGATE_TRACE_LOADS names (one per line).
import { appendFileSync } from 'node:fs'
import { createRequire, register } from 'node:module'

const out = process.env.TOOLGATE_TRACE_LOADS
register('./trace-loads-hooks.mjs', import.meta.url)
process.on('exit', () => {
  const cache = createRequire(import.meta.url).cache
  appendFileSync(out, Object.keys(cache).map((f) => `${f}\n`).join(''))
})
