import 'server-only'
import type { DbLike } from '@/db/client'
import { serverConfig } from '@/db/queries/servers'
import { oauthOf } from '@/db/queries/upstream'
import { isStdio, type Transport } from '@/db/schema'
import type { ServerFacts } from './fixes'

/** The facts a fix depends on, from a server's transport and how it gets its OAuth tokens. */
export function factsOf(db: DbLike, server: string, transport: Transport | null): ServerFacts {
  const kind = transport === null ? null : isStdio(transport) ? 'stdio' : 'http'
  return { transport: kind, clientCredentials: kind === 'http' && oauthOf(db, server)?.grant === 'client_credentials' }
}

/** Whether an operator has logged in to this server before (it holds OAuth tokens): then "Log in again" can help. */
export const hasLoggedIn = (db: DbLike, server: string): boolean => !!oauthOf(db, server)?.tokens

/** One configured server's facts; undefined when no such server exists. */
export function serverFacts(db: DbLike, server: string): ServerFacts | undefined {
  const config = serverConfig(db, server)
  return config && factsOf(db, server, config.transport)
}

/** Each listed server with its facts, for lists whose rows offer the server's one action (a server removed meanwhile drops out). */
export function withFacts<S extends { name: string }>(db: DbLike, list: readonly S[]): (S & { facts: ServerFacts })[] {
  return list.flatMap((s) => {
    const facts = serverFacts(db, s.name)
    return facts ? [{ ...s, facts }] : []
  })
}
