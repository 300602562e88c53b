import 'server-only'
import { and, eq, isNull } from 'drizzle-orm'
import type { Db, Tx } from '@/db/client'
import { servers, toolApprovals, tools, type ApprovedDefinition, type ToolAnnotations } from '@/db/schema'
import { insertActivity, type ActivityInput } from '@/lib/activity/record'
import { writeTransaction } from '@/db/write'
import { mintRequestId } from '@/lib/activity/request-id'
import type { ActivityDataByType } from '@/lib/activity/vocabulary'
import { toolPin } from '@/lib/preflight/hash'

/** A tool as an upstream's tools/list describes it. */
export interface DiscoveredTool {
  name: string
  description?: string
  inputSchema: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  annotations?: ToolAnnotations
}

export interface DiscoveryOutcome { baseline: boolean; added: string[]; changed: string[]; gone: string[]; returned: string[] }

const RUNTIME = 'runtime'
type DiscoveryRecord = 'tool.discovered' | 'tool.changed' | 'tool.auto_approved' | 'tool.gone' | 'tool.returned' | 'server.baseline'

/**
 * Store one complete discovery and apply the rug-pull guard, in one transaction:
 * - the first discovery of a server approves its tools as the baseline;
 * - a tool that appears later is pending (auto-approved on trust=auto servers);
 * - a tool whose pin differs from its approved pin becomes changed, keeping the approved
 *   definition for the diff (auto-approved on trust=auto servers);
 * - a tool no longer listed is marked gone, not deleted.
 * Every transition is an activity record.
 */
export function applyDiscovery(db: Db, serverName: string, discovered: DiscoveredTool[], now = Date.now()): Promise<DiscoveryOutcome> {
  return writeTransaction(db, (tx) => {
    const server = tx.select().from(servers).where(eq(servers.name, serverName)).get()
    if (!server) return { baseline: false, added: [], changed: [], gone: [], returned: [] }
    const requestId = mintRequestId(now)
    const record = <T extends DiscoveryRecord>(type: T, data: ActivityDataByType[T]) =>
      insertActivity(tx, { requestId, type, actor: RUNTIME, server: serverName, at: now, data } as ActivityInput)
    const baseline = server.baselineAt === null
    const auto = server.trust === 'auto'
    const known = new Map(tx.select().from(tools).where(eq(tools.serverName, serverName)).all().map((t) => [t.name, t]))
    const approvals = new Map(tx.select().from(toolApprovals).where(eq(toolApprovals.serverName, serverName)).all().map((a) => [a.toolName, a]))
    const out: DiscoveryOutcome = { baseline, added: [], changed: [], gone: [], returned: [] }

    for (const d of discovered) {
      const hash = toolPin({ name: d.name, description: d.description, inputSchema: d.inputSchema, outputSchema: d.outputSchema })
      const definition = {
        description: d.description ?? null, inputSchema: d.inputSchema, outputSchema: d.outputSchema ?? null,
        annotations: d.annotations ?? null, hash, lastSeen: now, goneAt: null,
      }
      const prev = known.get(d.name)
      const approval = approvals.get(d.name)
      if (!prev) {
        tx.insert(tools).values({ serverName, name: d.name, ...definition, firstSeen: now }).run()
        const status = baseline || auto ? 'approved' : 'pending'
        upsertApproval(tx, serverName, d.name, { status, approvedHash: status === 'approved' ? hash : null, previous: null, decidedAt: now })
        out.added.push(d.name)
        if (!baseline) record(auto ? 'tool.auto_approved' : 'tool.discovered', { target: `${serverName}:${d.name}`, before: null, after: { status, pin: hash } })
        continue
      }
      tx.update(tools).set(definition).where(and(eq(tools.serverName, serverName), eq(tools.name, d.name))).run()
      if (prev.goneAt !== null) {
        out.returned.push(d.name)
        record('tool.returned', { target: `${serverName}:${d.name}` })
      }
      const approvedHash = approval ? approval.approvedHash : prev.hash // no record = implicitly approved as it was
      if (approval?.status === 'pending' || hash === approvedHash) {
        // still awaiting review, or back to exactly what was approved
        if (approval?.status === 'changed') {
          upsertApproval(tx, serverName, d.name, { status: 'approved', approvedHash, previous: null, decidedAt: now })
          record('tool.changed', { target: `${serverName}:${d.name}`, before: { status: 'changed' }, after: { status: 'approved', pin: hash }, note: 'definition reverted to the approved one' })
        }
        continue
      }
      if (hash === prev.hash && approval?.status === 'changed') continue // already flagged, nothing new
      out.changed.push(d.name)
      if (auto) {
        upsertApproval(tx, serverName, d.name, { status: 'approved', approvedHash: hash, previous: null, decidedAt: now })
        record('tool.auto_approved', { target: `${serverName}:${d.name}`, before: { pin: approvedHash }, after: { status: 'approved', pin: hash } })
      } else {
        // keep the approved definition (the first time it changes) for the diff
        const previous = approval?.status === 'changed' && approval.previous
          ? approval.previous
          : { description: prev.description, input_schema: prev.inputSchema, output_schema: prev.outputSchema }
        upsertApproval(tx, serverName, d.name, { status: 'changed', approvedHash, previous, decidedAt: now })
        record('tool.changed', { target: `${serverName}:${d.name}`, before: { status: approval?.status ?? 'approved', pin: approvedHash }, after: { status: 'changed', pin: hash } })
      }
    }

    const listed = new Set(discovered.map((d) => d.name))
    for (const t of known.values()) {
      if (listed.has(t.name) || t.goneAt !== null) continue
      tx.update(tools).set({ goneAt: now }).where(and(eq(tools.serverName, serverName), eq(tools.name, t.name), isNull(tools.goneAt))).run()
      out.gone.push(t.name)
      record('tool.gone', { target: `${serverName}:${t.name}` })
    }
    if (baseline) {
      tx.update(servers).set({ baselineAt: now }).where(eq(servers.name, serverName)).run()
      record('server.baseline', { target: serverName, before: null, after: { approved: out.added.length } })
    }
    return out
  })
}

function upsertApproval(tx: Tx, serverName: string, toolName: string, v: { status: 'approved' | 'pending' | 'changed'; approvedHash: string | null; previous: ApprovedDefinition | null; decidedAt: number }) {
  const values = { ...v, decidedBy: RUNTIME }
  tx.insert(toolApprovals).values({ serverName, toolName, disabled: false, ...values })
    .onConflictDoUpdate({ target: [toolApprovals.serverName, toolApprovals.toolName], set: values }).run()
}
