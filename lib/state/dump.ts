import { asc } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { agentTokens, profiles, serverConnections, servers, toolApprovals, tools } from '../../db/schema'
import { readSettings } from '../../db/queries/settings'
import type { StateFileInput } from './schema'

/** The current proxy state as a state file; `dump | load` round-trips. Secrets appear only as hashes. */
export function dumpState(db: Db): StateFileInput {
  return db.transaction((tx) => {
    const s = readSettings(tx)
    const conns = new Map(tx.select().from(serverConnections).all().map((c) => [c.serverName, c]))
    const approvals = new Map(tx.select().from(toolApprovals).all().map((a) => [`${a.serverName}\u0000${a.toolName}`, a]))
    const toolsByServer = new Map<string, (typeof tools.$inferSelect)[]>()
    for (const t of tx.select().from(tools).orderBy(asc(tools.serverName), asc(tools.name)).all()) {
      const list = toolsByServer.get(t.serverName) ?? []
      list.push(t)
      toolsByServer.set(t.serverName, list)
    }
    return {
      version: 1 as const,
      settings: {
        quarantine_enabled: s.quarantineEnabled,
        mcp_anonymous_profile: s.mcpAnonymousProfile,
        activity_retention_days: s.activityRetentionDays,
      },
      servers: tx.select().from(servers).orderBy(asc(servers.name)).all().map((srv) => {
        const c = conns.get(srv.name)
        return {
          name: srv.name,
          enabled: srv.enabled,
          quarantined: srv.quarantined,
          trust: srv.trust,
          disabled_tools: srv.disabledTools,
          enabled_tools: srv.enabledTools,
          ...(srv.transport ? { transport: srv.transport } : {}),
          ...(c ? { connection: { state: c.state, ...(c.detail ? { detail: c.detail } : {}), ...(c.action ? { action: c.action } : {}) } } : {}),
          tools: (toolsByServer.get(srv.name) ?? []).map((t) => {
            const a = approvals.get(`${t.serverName}\u0000${t.name}`)
            return {
              name: t.name,
              ...(t.description !== null ? { description: t.description } : {}),
              input_schema: t.inputSchema,
              ...(t.outputSchema ? { output_schema: t.outputSchema } : {}),
              ...(t.annotations ? { annotations: t.annotations } : {}),
              ...(a ? { approval: { status: a.status, disabled: a.disabled, ...(a.previous ? { previous: a.previous } : {}) } } : {}),
            }
          }),
        }
      }),
      profiles: tx.select().from(profiles).orderBy(asc(profiles.name)).all().map((p) => ({ name: p.name, servers: p.servers })),
      agent_tokens: tx.select().from(agentTokens).orderBy(asc(agentTokens.name)).all().map((t) => ({
        name: t.name, token_hash: `sha256:${t.tokenHash}`, allowed_servers: t.allowedServers, profile_pin: t.profilePin,
      })),
    }
  })
}
