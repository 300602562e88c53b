import { createHash } from 'node:crypto'

/** The columns a record's hash covers, as stored (data as its JSON text, so a verifier hashes exactly what is on disk). */
export interface ChainedFields {
  requestId: string
  at: number
  type: string
  surface: string | null
  actor: string
  tier: string | null
  verdict: string | null
  server: string | null
  operatorId: string | null
  auth: string | null
  dataText: string
}

/** What the first record of a chain follows. */
export const CHAIN_GENESIS = ''

/**
 * A record's hash: SHA-256 over the record before's hash and every column of this one. Editing
 * a record changes its hash; deleting or moving one breaks the next record's link to it.
 */
export function chainHash(prevHash: string, f: ChainedFields): string {
  return createHash('sha256')
    .update(JSON.stringify([prevHash, f.requestId, f.at, f.type, f.surface, f.actor, f.tier, f.verdict, f.server, f.operatorId, f.auth]))
    .update('\n')
    .update(f.dataText)
    .digest('hex')
}

/** One stored record, as the verifier reads it (id order). */
export interface StoredLink extends ChainedFields { id: number; prevHash: string | null; hash: string | null }

export type ChainReport =
  | { ok: true; records: number; beforeChain: number; anchor: { id: number; prevHash: string } | null; head: { id: number; hash: string } | null }
  | { ok: false; records: number; id: number; problem: string }

/**
 * Walk the log in commit order and report the first record that does not fit. The first chained
 * record kept is the anchor: records before it may have been pruned, so its own link is taken as
 * given, and everything after it must follow. Records from before the chain began (null hash)
 * may only come first.
 */
export function verifyChain(links: Iterable<StoredLink>): ChainReport {
  const v = chainVerifier()
  for (const r of links) {
    const broken = v.add(r)
    if (broken) return broken
  }
  return v.report()
}

/**
 * verifyChain a record at a time, for logs read in batches (from a server, asynchronously):
 * add() answers the report of the first record that does not fit, else null; report() the whole.
 */
export function chainVerifier(): { add: (r: StoredLink) => ChainReport | null; report: () => ChainReport } {
  let records = 0
  let beforeChain = 0
  let anchor: { id: number; prevHash: string } | null = null
  let prev: { id: number; hash: string } | null = null
  const add = (r: StoredLink): ChainReport | null => {
    records++
    if (r.hash === null || r.prevHash === null) {
      if (prev === null) { beforeChain++; return null }
      return { ok: false, records, id: r.id, problem: `record ${r.id} has no hash, but the chain began at record ${anchor!.id}: it was written around the chain or its hash was removed` }
    }
    if (prev === null) anchor = { id: r.id, prevHash: r.prevHash }
    else if (r.prevHash !== prev.hash) {
      return { ok: false, records, id: r.id, problem: `record ${r.id} does not follow record ${prev.id}: a record between them was deleted or inserted, or the two were reordered` }
    }
    if (chainHash(r.prevHash, r) !== r.hash) {
      return { ok: false, records, id: r.id, problem: `record ${r.id} does not match its hash: its contents were changed after it was written` }
    }
    prev = { id: r.id, hash: r.hash }
    return null
  }
  return { add, report: () => ({ ok: true, records, beforeChain, anchor, head: prev }) }
}
