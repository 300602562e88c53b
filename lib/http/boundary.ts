import { isIP } from 'node:net'

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
}

const LOOPBACK_NAMES = ['localhost', 'localhost.']

const list = (v: string | undefined) => (v ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)

export function boundaryFromEnv(env: Record<string, string | undefined> = process.env): Boundary {
  return {
    hosts: new Set([...LOOPBACK_NAMES, ...list(env.TOOLGATE_ALLOWED_HOSTS)]),
    origins: new Set(list(env.TOOLGATE_ALLOWED_ORIGINS).map((o) => o.replace(/\/+$/, ''))),
  }
}

/** The host name of a Host header ("[::1]:3000" → "::1"), lower case; null when unparseable. */
export function hostName(host: string): string | null {
  const h = host.trim().toLowerCase()
  const m = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(h) ?? /^([^:\[\]\s/@]+)(?::\d{1,5})?$/.exec(h)
  return m ? m[1] : null
}

/** Why a request is refused at the boundary, or null when it may pass. */
export function boundaryFault(b: Boundary, host: string | undefined, origin: string | undefined): string | null {
  const name = host === undefined ? null : hostName(host)
  if (name === null || !(isIP(name) !== 0 || b.hosts.has(name))) {
    return `Host ${host === undefined ? '(none)' : JSON.stringify(host.slice(0, 100))} is not a name this toolgate serves (allow it with TOOLGATE_ALLOWED_HOSTS)`
  }
  if (origin === undefined) return null
  const o = origin.trim().toLowerCase().replace(/\/+$/, '')
  if (o === `http://${host!.trim().toLowerCase()}` || o === `https://${host!.trim().toLowerCase()}` || b.origins.has(o)) return null
  return `Origin ${JSON.stringify(origin.slice(0, 100))} may not use this toolgate (allow it with TOOLGATE_ALLOWED_ORIGINS)`
}
