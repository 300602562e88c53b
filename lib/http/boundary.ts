import { isIP } from 'node:net'
import { environment } from '@/lib/core/config'

/**
 * Who may reach toolgate at all (contract §13, the MCP transport's DNS-rebinding rule):
 * - `Host` must be a name toolgate serves: the loopback names and any IP literal (DNS
 *   rebinding needs a DNS name), whatever address it is bound to, plus the names listed in
 *   TOOLGATE_ALLOWED_HOSTS (e.g. behind a reverse proxy). Every other name is refused: the
 *   operator says which names are theirs.
 * - `Origin`, when present, must be toolgate's own (the origin of the Host it was reached on)
 *   or one in TOOLGATE_ALLOWED_ORIGINS.
 */
export interface Boundary {
  hosts: ReadonlySet<string>
  origins: ReadonlySet<string>
  /** TOOLGATE_TRUST_PROXY: a reverse proxy in front sets X-Forwarded-Host / -Proto, so they are believed */
  trustProxy: boolean
}

const LOOPBACK_NAMES = ['localhost', 'localhost.']

const list = (v: string | undefined) => (v ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)

export function boundaryFromEnv(env: Record<string, string | undefined> = environment()): Boundary {
  return {
    hosts: new Set([...LOOPBACK_NAMES, ...list(env.TOOLGATE_ALLOWED_HOSTS)]),
    origins: new Set(list(env.TOOLGATE_ALLOWED_ORIGINS).map((o) => o.replace(/\/+$/, ''))),
    trustProxy: ['1', 'true', 'yes'].includes((env.TOOLGATE_TRUST_PROXY ?? '').trim().toLowerCase()),
  }
}

/** The host name of a Host header ("[::1]:3000" → "::1"), lower case; null when unparseable. */
export function hostName(host: string): string | null {
  const h = host.trim().toLowerCase()
  const m = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(h) ?? /^([^:\[\]\s/@]+)(?::\d{1,5})?$/.exec(h)
  return m ? m[1] : null
}

/** Whether `host` (a Host header's value) names this toolgate. */
const servesHost = (b: Boundary, host: string) => {
  const name = hostName(host)
  return name !== null && (isIP(name) !== 0 || b.hosts.has(name))
}

/** Why a request is refused at the boundary, or null when it may pass. */
export function boundaryFault(b: Boundary, host: string | undefined, origin: string | undefined): string | null {
  if (host === undefined || !servesHost(b, host)) {
    return `Host ${host === undefined ? '(none)' : JSON.stringify(host.slice(0, 100))} is not a name this toolgate serves (allow it with TOOLGATE_ALLOWED_HOSTS)`
  }
  if (origin === undefined) return null
  const o = origin.trim().toLowerCase().replace(/\/+$/, '')
  if (o === `http://${host!.trim().toLowerCase()}` || o === `https://${host!.trim().toLowerCase()}` || b.origins.has(o)) return null
  return `Origin ${JSON.stringify(origin.slice(0, 100))} may not use this toolgate (allow it with TOOLGATE_ALLOWED_ORIGINS)`
}

/**
 * toolgate's own origin as the client reached it, for the URLs it hands out (the OAuth redirect
 * URI, the client metadata document, the session cookie's Secure flag). The Host header has
 * passed the boundary; X-Forwarded-Host and X-Forwarded-Proto are believed only with
 * TOOLGATE_TRUST_PROXY (anyone can send them), and a forwarded host only if the boundary serves
 * that name too. Null without a Host.
 */
export function publicOrigin(b: Boundary, header: (name: string) => string | null | undefined): string | null {
  const first = (name: string) => header(name)?.split(',')[0].trim() || undefined
  const forwarded = b.trustProxy ? first('x-forwarded-host') : undefined
  const host = forwarded && servesHost(b, forwarded) ? forwarded : header('host')?.trim()
  if (!host) return null
  const proto = b.trustProxy && first('x-forwarded-proto') === 'https' ? 'https' : 'http'
  return `${proto}://${host.toLowerCase()}`
}
