import 'server-only'
import { and, asc, eq, inArray, isNull } from 'drizzle-orm'
import type { DbLike, Tx } from '@/db/client'
import { serverDefinitions, servers, settings, type DefinitionKind, type JsonObject, type ServerDefinition } from '@/db/schema'
import type { Trust } from '@/lib/core/state'

/**
 * A server's instructions, prompts, resources and templates (db/schema/definitions.ts). As for
 * tools, ones a server stopped offering (gone) exist for no one, so no read here returns them.
 */
export function knownDefinitions(db: DbLike, opts: { servers?: readonly string[]; kinds?: readonly DefinitionKind[] } = {}): ServerDefinition[] {
  return db.select().from(serverDefinitions).where(and(
    isNull(serverDefinitions.goneAt),
    opts.servers === undefined ? undefined : inArray(serverDefinitions.serverName, [...opts.servers]),
    opts.kinds === undefined ? undefined : inArray(serverDefinitions.kind, [...opts.kinds]),
  )).orderBy(asc(serverDefinitions.serverName), asc(serverDefinitions.kind), asc(serverDefinitions.key)).all()
}

/** Every definition a server ever offered, gone ones included: what discovery compares a new listing with. */
export function definitionsOf(db: DbLike, server: string): ServerDefinition[] {
  return db.select().from(serverDefinitions).where(eq(serverDefinitions.serverName, server)).all()
}

/**
 * What agents are served of a definition, or undefined when it is withheld: the approved one,
 * never the one offered now; where the approval gate does not apply (quarantine_enabled off, a
 * trust=auto server) one awaiting review is served as offered, as a tool is. Undecided (seen only
 * by an inspection) is never served.
 */
export function servedDefinition(d: ServerDefinition, trust: Trust, quarantineEnabled: boolean): JsonObject | undefined {
  if (d.status === 'approved') return d.approved ?? undefined
  if (d.status !== null && (!quarantineEnabled || trust === 'auto')) return d.definition
  return undefined
}

/** The served definitions of one kind on these servers, in (server, key) order. */
export function servedDefinitions(db: DbLike, serverNames: readonly string[], kind: DefinitionKind): { server: string; key: string; definition: JsonObject }[] {
  if (serverNames.length === 0) return []
  const quarantineEnabled = db.select({ q: settings.quarantineEnabled }).from(settings).where(eq(settings.id, 1)).get()?.q ?? true
  const trust = new Map(db.select({ name: servers.name, trust: servers.trust }).from(servers).where(inArray(servers.name, [...serverNames])).all().map((s) => [s.name, s.trust]))
  return knownDefinitions(db, { servers: serverNames, kinds: [kind] }).flatMap((d) => {
    const t = trust.get(d.serverName)
    const served = t && servedDefinition(d, t, quarantineEnabled)
    return served ? [{ server: d.serverName, key: d.key, definition: served }] : []
  })
}

/** One definition of a server (not gone), of any of these kinds. */
export function knownDefinition(db: DbLike, server: string, kinds: readonly DefinitionKind[], key: string): ServerDefinition | undefined {
  return db.select().from(serverDefinitions).where(and(
    eq(serverDefinitions.serverName, server), inArray(serverDefinitions.kind, [...kinds]), eq(serverDefinitions.key, key), isNull(serverDefinitions.goneAt),
  )).orderBy(asc(serverDefinitions.kind)).get()
}

/** A decision on a server's definition: approved (with the definition approved and its pin) or pending. */
export interface DefinitionDecision { status: 'approved' | 'pending'; approved: JsonObject | null; approvedHash: string | null }

/** Which definition: its server, kind and key. */
export type DefinitionKey = Pick<ServerDefinition, 'serverName' | 'kind' | 'key'>

/** Change one of a server's definitions, inside the caller's write transaction. */
export function updateDefinition(tx: Tx, d: DefinitionKey, change: Partial<Omit<ServerDefinition, keyof DefinitionKey>>): void {
  tx.update(serverDefinitions).set(change)
    .where(and(eq(serverDefinitions.serverName, d.serverName), eq(serverDefinitions.kind, d.kind), eq(serverDefinitions.key, d.key))).run()
}

/** Record a decision on one of a server's definitions, inside the caller's write transaction. */
export function decideDefinition(tx: Tx, d: DefinitionKey, decision: DefinitionDecision, by: string, at: number): void {
  updateDefinition(tx, d, { ...decision, decidedBy: by, decidedAt: at })
}

/** A definition offered for the first time, inside the caller's write transaction. */
export function insertDefinition(tx: Tx, row: Omit<ServerDefinition, 'goneAt'>): void {
  tx.insert(serverDefinitions).values(row).run()
}
