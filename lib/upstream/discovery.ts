import 'server-only'
import { and, eq, isNull } from 'drizzle-orm'
import type { Db, Tx } from '@/db/client'
import { discoveryBasis, reviewContext } from '@/db/queries/tools'
import { servers, toolApprovals, tools, type ApprovedDefinition, type JsonObject, type ToolAnnotations } from '@/db/schema'
import { writeTransaction } from '@/db/write'
import { insertActivity, type ActivityInput } from '@/lib/activity/record'
import { mintRequestId } from '@/lib/activity/request-id'
import type { ActivityDataByType } from '@/lib/activity/vocabulary'
import { approvedOf, definitionDiff, definitionOf } from '@/lib/approvals/definition'
import { reviewFindings } from '@/lib/approvals/findings'
import { toolPin } from '@/lib/preflight/hash'

/** A tool as an upstream's tools/list describes it: every field, kept as given. */
export interface DiscoveredTool {
  name: string
  title?: string
  description?: string
  inputSchema: JsonObject
  outputSchema?: JsonObject
  annotations?: ToolAnnotations
  execution?: JsonObject
  icons?: unknown[]
  _meta?: JsonObject
}

export interface DiscoveryOutcome { baseline: boolean; added: string[]; changed: string[]; gone: string[]; returned: string[] }

const RUNTIME = 'runtime'
type DiscoveryRecord = 'tool.discovered' | 'tool.changed' | 'tool.auto_approved' | 'tool.gone' | 'tool.returned' | 'server.baseline' | 'server.inspected'

const columnsOf = (d: DiscoveredTool) => ({
  title: d.title ?? null, description: d.description ?? null, inputSchema: d.inputSchema, outputSchema: d.outputSchema ?? null,
  annotations: d.annotations ?? null, execution: d.execution ?? null, icons: d.icons ?? null, meta: d._meta ?? null,
})

/**
 * Store one complete discovery and apply the rug-pull guard, in one transaction:
 * - the first discovery of a server (added trusted) approves its tools as the baseline;
 * - a tool that appears later is pending (auto-approved on trust=auto servers);
 * - a tool whose pin — over every served field, annotations included — differs from its
 *   approved pin becomes changed, keeping the approved definition for the diff
 *   (auto-approved on trust=auto servers);
 * - a tool no longer listed is marked gone, not deleted.
 * Every transition is an activity record, with the field-by-field diff and review findings.
 *
 * `inspect`: a quarantined server, connected only to be looked at. Its definitions are stored
 * (and shown, withheld by the quarantine) with no approval decided: releasing the server
 * approves what the operator was shown.
 */
export function applyDiscovery(db: Db, serverName: string, discovered: DiscoveredTool[], opts: { inspect?: boolean; now?: number } = {}): Promise<DiscoveryOutcome> {
  const now = opts.now ?? Date.now()
  return writeTransaction(db, (tx) => {
    const basis = discoveryBasis(tx, serverName)
    if (!basis) return { baseline: false, added: [], changed: [], gone: [], returned: [] }
    const { server, known, approvals } = basis
    const requestId = mintRequestId(now)
    const record = <T extends DiscoveryRecord>(type: T, data: ActivityDataByType[T]) =>
      insertActivity(tx, { requestId, type, actor: RUNTIME, server: serverName, at: now, data } as ActivityInput)
    const context = reviewContext(tx, serverName)
    const findingsOf = (def: ApprovedDefinition & { name: string }) => reviewFindings(def, context)
    const inspect = opts.inspect === true
    const baseline = !inspect && server.baselineAt === null
    const auto = server.trust === 'auto'
    const out: DiscoveryOutcome = { baseline, added: [], changed: [], gone: [], returned: [] }

    for (const d of discovered) {
      const columns = columnsOf(d)
      const definition = definitionOf({ name: d.name, ...columns })
      const hash = toolPin(definition)
      const target = `${serverName}:${d.name}`
      const prev = known.get(d.name)
      const approval = approvals.get(d.name)
      if (!prev) {
        tx.insert(tools).values({ serverName, name: d.name, ...columns, hash, firstSeen: now, lastSeen: now }).run()
        out.added.push(d.name)
        if (inspect) continue
        const status = baseline || auto ? 'approved' : 'pending'
        upsertApproval(tx, serverName, d.name, { status, approvedHash: status === 'approved' ? hash : null, previous: null, decidedAt: now })
        if (!baseline) record(auto ? 'tool.auto_approved' : 'tool.discovered', { target, before: null, after: { status, pin: hash }, findings: findingsOf(definition) })
        continue
      }
      tx.update(tools).set({ ...columns, hash, lastSeen: now, goneAt: null }).where(and(eq(tools.serverName, serverName), eq(tools.name, d.name))).run()
      if (prev.goneAt !== null) {
        out.returned.push(d.name)
        record('tool.returned', { target })
      }
      if (inspect || (!approval && baseline)) continue
      const approvedHash = approval ? approval.approvedHash : prev.hash // no record = implicitly approved as it was
      if (approval?.status === 'pending' || hash === approvedHash) {
        // still awaiting review, or back to exactly what was approved
        if (approval?.status === 'changed') {
          upsertApproval(tx, serverName, d.name, { status: 'approved', approvedHash, previous: null, decidedAt: now })
          record('tool.changed', { target, before: { status: 'changed' }, after: { status: 'approved', pin: hash }, note: 'definition reverted to the approved one' })
        }
        continue
      }
      if (hash === prev.hash && approval?.status === 'changed') continue // already flagged, nothing new
      out.changed.push(d.name)
      // the approved definition, kept the first time it changes
      const previous = approval?.status === 'changed' && approval.previous ? approval.previous : approvedOf(prev)
      const { name: _name, ...current } = definition
      const diff = definitionDiff(previous, current)
      if (auto) {
        upsertApproval(tx, serverName, d.name, { status: 'approved', approvedHash: hash, previous: null, decidedAt: now })
        record('tool.auto_approved', { target, before: { pin: approvedHash }, after: { status: 'approved', pin: hash }, diff, findings: findingsOf(definition) })
      } else {
        upsertApproval(tx, serverName, d.name, { status: 'changed', approvedHash, previous, decidedAt: now })
        record('tool.changed', { target, before: { status: approval?.status ?? 'approved', pin: approvedHash }, after: { status: 'changed', pin: hash }, diff, findings: findingsOf(definition) })
      }
    }

    const listed = new Set(discovered.map((d) => d.name))
    for (const t of known.values()) {
      if (listed.has(t.name) || t.goneAt !== null) continue
      tx.update(tools).set({ goneAt: now }).where(and(eq(tools.serverName, serverName), eq(tools.name, t.name), isNull(tools.goneAt))).run()
      out.gone.push(t.name)
      record('tool.gone', { target: `${serverName}:${t.name}` })
    }
    if (inspect) {
      tx.update(servers).set({ inspectedAt: now }).where(eq(servers.name, serverName)).run()
      record('server.inspected', {
        target: serverName, before: null, after: { tools: discovered.length },
        findings: discovered.flatMap((d) => findingsOf(definitionOf({ name: d.name, ...columnsOf(d) })).map((f) => ({ ...f, field: `${d.name}.${f.field}` }))),
      })
    } else if (baseline) {
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
