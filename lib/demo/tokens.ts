import 'server-only'
import { readFileSync } from 'node:fs'
import type { Db } from '@/db/client'
import { mintRequestId } from '@/lib/activity/request-id'
import { revokeAgentToken } from '@/lib/admin/tokens'
import { agentTokenOf } from '@/lib/auth/caller'
import { demoStateFile } from '@/lib/state/demo'
import { parseStateFile } from '@/lib/state/load'

/**
 * The demo's agent tokens are printed in the README and the state file: anyone may know them.
 * On loopback that is the point (a newcomer connects a client at once); reachable from a network
 * it is an open door. Revoke every one this database still honours, on the record; returns their names.
 */
export async function revokeWellKnownTokens(db: Db): Promise<string[]> {
  const known = parseStateFile(JSON.parse(readFileSync(demoStateFile(), 'utf8'))).agent_tokens
  const ctx = { actor: 'toolgate:serve', requestId: mintRequestId() }
  const revoked: string[] = []
  for (const { token } of known) {
    const row = token ? agentTokenOf(db, token) : undefined
    if (!row) continue
    await revokeAgentToken(db, row.name, ctx)
    revoked.push(row.name)
  }
  return revoked
}
