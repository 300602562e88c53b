import 'server-only'
import { createHash } from 'node:crypto'
import type { Db } from '@/db/client'

// Everything a served tool list depends on (definitions, approvals, servers and whether they are
// up, profiles, tokens' scopes, the settings that gate listing), and nothing that changes with
// traffic: the activity log, last-seen times and sessions stay out, so checks never invalidate it.
const PARTS = [
  `select server_name, name, hash, gone_at is null from tools order by server_name, name`,
  `select server_name, tool_name, status, disabled, approved_hash from tool_approvals order by server_name, tool_name`,
  `select name, enabled, quarantined, trust, disabled_tools, enabled_tools, call_approval_tools, transport is not null from servers order by name`,
  `select server_name, state from server_connections order by server_name`,
  `select name, servers from profiles order by name`,
  `select name, allowed_servers, profile_pin from agent_tokens order by name`,
  `select quarantine_enabled, mcp_anonymous_profile, max_description_overlap from settings`,
]

/** A digest of what every scope's tools/list is made of: equal digests, equal surface reports. */
export function surfaceFingerprint(db: Db): string {
  const h = createHash('sha1')
  for (const sql of PARTS) for (const row of db.$client.prepare(sql).raw().iterate()) h.update(JSON.stringify(row))
  return h.digest('hex')
}
