import path from 'node:path'
import type { RuntimeHolder } from '@/db/queries/connections'
import { defaultDbFile } from '@/lib/core/paths'
import { envVar } from '@/lib/core/config'

/**
 * Where toolgate is: one rule for the server and every CLI command, so both find the same
 * database and the same address (doctor prints it).
 *
 *   database  --db, else $TOOLGATE_DB (relative to the working directory), else ./data/toolgate.db
 *   listen    --port/--host, else $PORT/$HOST, else 127.0.0.1:3000
 *   URL       the server: $TOOLGATE_URL, else http://<host it listens on>:<port>, recorded in
 *             the database's runtime lease; the CLI: --url, else $TOOLGATE_URL, else the URL the
 *             server running on its database recorded, else http://127.0.0.1:$PORT (3000)
 */

export type DbSource = '--db' | 'TOOLGATE_DB' | 'default'

/** The database a command uses, and which rule chose it. */
export function databaseOf(flag: string | undefined): { file: string; from: DbSource } {
  if (flag) return { file: path.resolve(flag), from: '--db' }
  return { file: defaultDbFile(), from: envVar('TOOLGATE_DB') ? 'TOOLGATE_DB' : 'default' }
}

/** Whether a listen address is reachable from this machine only. */
export const isLoopbackHost = (host: string) => host === 'localhost' || host === '::1' || /^127\./.test(host)

/** The host to put in a URL for a listen address: a wildcard bind is reached on loopback from here. */
export function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1'
  if (host === '::') return '[::1]'
  return host.includes(':') ? `[${host}]` : host
}

/** The server's own URL (printed, OAuth callbacks): $TOOLGATE_URL, else where it listens. */
export const ownUrl = (host: string, port: number) => envVar('TOOLGATE_URL') ?? `http://${urlHost(host)}:${port}`

export type UrlSource = '--url' | 'TOOLGATE_URL' | 'running server' | 'default'

/** The URL a CLI command reaches toolgate at, and which rule chose it; `holder` runs on its database (runtimeHolder). */
export function serverUrlOf(holder: RuntimeHolder | null, flag: string | undefined): { url: string; from: UrlSource } {
  if (flag) return { url: flag, from: '--url' }
  const url = envVar('TOOLGATE_URL')
  if (url) return { url, from: 'TOOLGATE_URL' }
  if (holder?.url) return { url: holder.url, from: 'running server' }
  return { url: `http://127.0.0.1:${envVar('PORT') || 3000}`, from: 'default' }
}

/** Whether a toolgate answers at this base URL (its /api/v1 answers carry a req_ request id). */
export async function toolgateAnswersAt(url: string): Promise<boolean> {
  const answer = await fetch(new URL('/api/v1/whoami', url), { signal: AbortSignal.timeout(2_000) }).catch(() => null)
  return answer?.headers.get('x-request-id')?.startsWith('req_') ?? false
}
