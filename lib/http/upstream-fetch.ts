import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import { Readable } from 'node:stream'
import type { ResolvedAddress } from './address-class'

/**
 * The process's own fetch, as it was before Next.js patched the global one (it does so when the
 * app is prepared). Upstream traffic — the runtime's connections and OAuth discovery, registration
 * and token requests — uses this one: inside a Next.js request the patched fetch can leave a
 * response body that is cancelled unsettled, which hung logins whose discovery probes met a 404.
 */
const KEY = Symbol.for('toolgate.upstreamFetch')
type WithFetch = typeof globalThis & { [KEY]?: typeof fetch }

/** Call once at startup, before Next.js is prepared. */
export function keepUnpatchedFetch(): void {
  const g = globalThis as WithFetch
  g[KEY] ??= globalThis.fetch
}

export const upstreamFetch: typeof fetch = (input, init) => ((globalThis as WithFetch)[KEY] ?? globalThis.fetch)(input, init)

/** A request toolgate refused to send; the message names the URL and the rule it broke. */
export class OutboundRefused extends Error {
  override name = 'OutboundRefused'
}

/** Whether a URL may be fetched: the addresses to connect to for it, or an OutboundRefused. */
export type OutboundCheck = (url: URL) => Promise<ResolvedAddress[]>

const NULL_BODY = new Set([101, 204, 205, 304])

/**
 * A fetch that connects only to the addresses `check` gives for each URL: what was checked is
 * what is dialled, so a name that resolves elsewhere a moment later (DNS rebinding) changes
 * nothing. Each request has a connection of its own (no pooled socket skips the check).
 * It never follows a redirect — it answers a 3xx as `redirect: 'manual'` does, and refuses one
 * whose target `check` refuses, naming both; the MCP SDK follows same-origin redirects itself,
 * through this fetch again, so every hop is checked. Network failures are TypeErrors, as fetch's are.
 */
export function pinnedFetch(check: OutboundCheck): typeof fetch {
  return async (input, init) => {
    const req = new Request(input, init)
    const url = new URL(req.url)
    const addresses = await check(url)
    if (addresses.length === 0) throw new OutboundRefused(`${url.href}: its host has no address`)
    const lookup: LookupFunction = (_host, opts, cb) => (opts.all ? cb(null, addresses) : cb(null, addresses[0].address, addresses[0].family))
    const body = req.body ? Buffer.from(await req.arrayBuffer()) : undefined
    const headers = Object.fromEntries(req.headers)
    const signal = init?.signal ?? undefined
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const r = (url.protocol === 'https:' ? https : http).request(url, { method: req.method, headers, lookup, agent: false, signal }, resolve)
      r.on('error', (e) => reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: e })))
      r.end(body)
    })
    const status = res.statusCode ?? 0
    const location = res.headers.location
    if (status >= 300 && status < 400 && location) {
      try {
        await check(new URL(location, url))
      } catch (e) {
        res.destroy()
        throw e instanceof OutboundRefused ? new OutboundRefused(`${url.href} redirects to ${new URL(location, url).href}, refused: ${e.message}`) : e
      }
      if (req.redirect === 'error') {
        res.destroy()
        throw new TypeError(`fetch failed: ${url.href} redirects (redirect: "error")`)
      }
    }
    const responseHeaders = new Headers()
    for (let i = 0; i < res.rawHeaders.length; i += 2) responseHeaders.append(res.rawHeaders[i], res.rawHeaders[i + 1])
    const empty = NULL_BODY.has(status) || req.method === 'HEAD'
    if (empty) res.resume()
    return new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, statusText: res.statusMessage, headers: responseHeaders })
  }
}
