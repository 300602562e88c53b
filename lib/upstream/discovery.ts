import 'server-only'
import type { Db, Tx } from '@/db/client'
import { discoveryBasis, insertTool, markToolGone, relistTool, reviewContext, saveApproval } from '@/db/queries/tools'
import { updateServer } from '@/db/queries/servers'
import type { ApprovedDefinition, Server, ServerDefinition, ToolApproval } from '@/db/schema'
import { definitionsOf, insertDefinition, updateDefinition } from '@/db/queries/definitions'
import { definitionChanges, definitionId, definitionPin, type DiscoveredDefinition } from '@/lib/approvals/server-definitions'
import { writeTransaction } from '@/db/write'
import { insertActivity, type ActivityInput } from '@/lib/activity/record'
import { mintRequestId } from '@/lib/activity/request-id'
import type { ActivityDataByType } from '@/lib/core/activity'
import { approvedOf, definitionOf, storedOfWire, type WireDefinition } from '@/lib/core/definition'
import { definitionDiff } from '@/lib/approvals/definition'
import { reviewFindings, type ReviewContext } from '@/lib/approvals/findings'
import { reachFindings, semanticDiff } from '@/lib/approvals/semantic-diff'
import { toolPin } from '@/lib/preflight/hash'

export interface DiscoveryOutcome { baseline: boolean; added: string[]; changed: string[]; gone: string[]; returned: string[] }

const RUNTIME = 'runtime'
type DiscoveryRecord = 'tool.discovered' | 'tool.changed' | 'tool.auto_approved' | 'tool.gone' | 'tool.returned' | 'server.baseline' | 'server.inspected'

/** An inspection that failed: kept with its reason, so the server page says so rather than "Inspecting…" for ever. */
export function recordInspectionFailure(db: Db, serverName: string, error: string, now = Date.now()): Promise<void> {
  return writeTransaction(db, (tx) => updateServer(tx, serverName, { inspectFailedAt: now, inspectError: error }))
}

/**
 * Store one complete discovery and apply the rug-pull guard, in one transaction:
 * - the first discovery of a server (added trusted) approves its tools as the baseline;
 * - a tool that appears later is pending (auto-approved on trust=auto servers);
 * - a tool whose pin — over every served field, annotations and _meta included — differs from
 *   its approved pin becomes changed, keeping the approved definition, which is what agents are
 *   served (db/queries/served-tools.ts) while the tool is withheld anyway (auto-approved on
 *   trust=auto servers);
 * - a tool no longer listed is marked gone, not deleted.
 * Every transition is an activity record, with the field-by-field diff and review findings.
 *
 * The tools row always takes what the server offers now; the approved definition changes only
 * by an approval. A discovery is applied whole or not at all: one that fails (or a tools/list
 * that never answers) leaves every stored definition, and every approval, as it was.
 *
 * `inspect`: a quarantined server, connected only to be looked at. A tool it lists for the
 * first time is stored with no approval decided (releasing the server approves what the
 * operator was shown); a tool approved before is held to its approval exactly as the runtime
 * would hold it, so an inspection cannot carry a changed definition past the guard.
 */
export function applyDiscovery(db: Db, serverName: string, discovered: WireDefinition[], opts: { inspect?: boolean; now?: number; definitions?: DiscoveredDefinition[] } = {}): Promise<DiscoveryOutcome> {
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
      const { name: _n, ...columns } = storedOfWire(d)
      const definition = definitionOf({ name: d.name, ...columns })
      const { name: _name, ...offered } = definition
      const hash = toolPin(definition)
      const target = `${serverName}:${d.name}`
      const prev = known.get(d.name)
      const approval = approvals.get(d.name)
      if (!prev) {
        insertTool(tx, serverName, d.name, { ...columns, hash }, now)
        out.added.push(d.name)
        if (inspect) continue
        const status = baseline || auto ? 'approved' : 'pending'
        const approved = status === 'approved'
        upsertApproval(tx, serverName, d.name, { status, approved: approved ? offered : null, approvedHash: approved ? hash : null, decidedAt: now })
        if (!baseline) record(auto ? 'tool.auto_approved' : 'tool.discovered', { target, before: null, after: { status, pin: hash }, findings: findingsOf(definition) })
        continue
      }
      relistTool(tx, serverName, d.name, { ...columns, hash }, now)
      if (prev.goneAt !== null) {
        out.returned.push(d.name)
        record('tool.returned', { target })
      }
      // nothing approved yet: a server only ever inspected, or at its baseline (which approves it as it is)
      if (!approval && server.baselineAt === null) continue
      // still awaiting review: approving it takes the definition as it is then
      if (approval?.status === 'pending') continue
      // what was approved: the record's definition, or (no record) the tool as it stood, implicitly approved
      const approvedHash = approval ? approval.approvedHash : prev.hash
      const approvedDefinition = approval ? approval.approved : approvedOf(prev)
      if (hash === approvedHash) {
        // back to exactly what was approved
        if (approval?.status === 'changed') {
          upsertApproval(tx, serverName, d.name, { status: 'approved', approved: approvedDefinition, approvedHash, decidedAt: now })
          record('tool.changed', { target, before: { status: 'changed' }, after: { status: 'approved', pin: hash }, note: 'definition reverted to the approved one' })
        }
        continue
      }
      if (hash === prev.hash && approval?.status === 'changed') continue // already flagged, nothing new
      out.changed.push(d.name)
      holdToApproval(tx, { server, definition, hash, approval: { status: approval?.status ?? 'approved', approved: approvedDefinition, approvedHash }, actor: RUNTIME, requestId, now, context, ...(inspect ? { note: 'found by inspection' } : {}) })
    }

    const listed = new Set(discovered.map((d) => d.name))
    for (const t of known.values()) {
      if (listed.has(t.name) || t.goneAt !== null) continue
      markToolGone(tx, serverName, t.name, now)
      out.gone.push(t.name)
      record('tool.gone', { target: `${serverName}:${t.name}` })
    }
    if (opts.definitions) applyDefinitions(tx, opts.definitions, { server, inspect, baseline, requestId, now, context })
    if (inspect) {
      updateServer(tx, serverName, { inspectedAt: now })
      record('server.inspected', {
        target: serverName, before: null, after: { tools: discovered.length, ...(opts.definitions ? { definitions: opts.definitions.length } : {}) },
        findings: [
          ...discovered.flatMap((d) => findingsOf(definitionOf(storedOfWire(d))).map((f) => ({ ...f, field: `${d.name}.${f.field}` }))),
          ...(opts.definitions ?? []).flatMap((d) => reviewFindings(d.definition, context).map((f) => ({ ...f, field: `${definitionId(serverName, d.kind, d.key)}.${f.field}` }))),
        ],
      })
    } else if (baseline) {
      updateServer(tx, serverName, { baselineAt: now })
      record('server.baseline', { target: serverName, before: null, after: { approved: out.added.length } })
    }
    return out
  })
}

/**
 * A tool whose server offers a definition other than the approved one: changed, keeping the
 * approved definition (auto-approved on trust=auto servers), on the record with the diff and
 * findings. Discovery, inspection and release all hold a tool to its approval through here.
 */
export function holdToApproval(tx: Tx, c: {
  server: Pick<Server, 'name' | 'trust'>; definition: ApprovedDefinition & { name: string }; hash: string
  approval: { status: ToolApproval['status']; approved: ApprovedDefinition | null; approvedHash: string | null }
  actor: string; requestId: string; now: number; context: ReviewContext; note?: string
}): void {
  const { name, ...offered } = c.definition
  const target = `${c.server.name}:${name}`
  const diff = c.approval.approved ? definitionDiff(c.approval.approved, offered) : []
  const findings = [...reviewFindings(c.definition, c.context), ...(c.approval.approved ? reachFindings(semanticDiff(c.approval.approved, offered)) : [])]
  const at = { requestId: c.requestId, actor: c.actor, server: c.server.name, at: c.now }
  const note = c.note ? { note: c.note } : {}
  if (c.server.trust === 'auto') {
    upsertApproval(tx, c.server.name, name, { status: 'approved', approved: offered, approvedHash: c.hash, decidedAt: c.now }, c.actor)
    insertActivity(tx, { ...at, type: 'tool.auto_approved', data: { target, before: { pin: c.approval.approvedHash }, after: { status: 'approved', pin: c.hash }, diff, findings, ...note } })
  } else {
    upsertApproval(tx, c.server.name, name, { status: 'changed', approved: c.approval.approved, approvedHash: c.approval.approvedHash, decidedAt: c.now }, c.actor)
    insertActivity(tx, { ...at, type: 'tool.changed', data: { target, before: { status: c.approval.status, pin: c.approval.approvedHash }, after: { status: 'changed', pin: c.hash }, diff, findings, ...note } })
  }
}

interface DefinitionPass { server: Pick<Server, 'name' | 'trust'>; inspect: boolean; baseline: boolean; requestId: string; now: number; context: ReviewContext }

/**
 * The same guard for a server's instructions, prompts, resources and templates: the baseline
 * approves them, a new one is pending, one whose pin differs from its approved pin is changed
 * (trust=auto approves both), one no longer offered is gone. An inspection decides nothing for
 * one it sees first, and holds one approved before to its approval.
 */
function applyDefinitions(tx: Tx, offered: DiscoveredDefinition[], c: DefinitionPass): void {
  const serverName = c.server.name
  const keyOf = (d: { kind: string; key: string }) => `${d.kind}\u0000${d.key}`
  const known = new Map(definitionsOf(tx, serverName).map((d) => [keyOf(d), d]))
  const at = { requestId: c.requestId, actor: RUNTIME, server: serverName, at: c.now }
  const auto = c.server.trust === 'auto'
  for (const d of offered) {
    const hash = definitionPin(d.kind, d.definition)
    const target = definitionId(serverName, d.kind, d.key)
    const prev = known.get(keyOf(d))
    if (!prev) {
      const status = c.inspect ? null : c.baseline || auto ? 'approved' : 'pending'
      const approved = status === 'approved'
      insertDefinition(tx, {
        serverName, kind: d.kind, key: d.key, definition: d.definition, hash, status, approved: approved ? d.definition : null, approvedHash: approved ? hash : null,
        decidedBy: status && RUNTIME, decidedAt: status && c.now, firstSeen: c.now, lastSeen: c.now,
      })
      if (status && !c.baseline) {
        insertActivity(tx, { ...at, type: auto ? 'definition.auto_approved' : 'definition.discovered', data: { target, kind: d.kind, before: null, after: { status, pin: hash }, findings: reviewFindings(d.definition, c.context) } })
      }
      continue
    }
    const key = { serverName, kind: d.kind, key: d.key }
    updateDefinition(tx, key, { definition: d.definition, hash, lastSeen: c.now, goneAt: null })
    // nothing approved yet (undecided or pending): approving takes it as it is then
    if (prev.status === null || prev.status === 'pending') continue
    if (hash === prev.approvedHash) {
      if (prev.status === 'changed') {
        updateDefinition(tx, key, { status: 'approved', decidedBy: RUNTIME, decidedAt: c.now })
        insertActivity(tx, { ...at, type: 'definition.changed', data: { target, kind: d.kind, before: { status: 'changed' }, after: { status: 'approved', pin: hash }, note: 'definition reverted to the approved one' } })
      }
      continue
    }
    if (hash === prev.hash && prev.status === 'changed') continue // already flagged, nothing new
    holdDefinition(tx, { ...prev, definition: d.definition, hash }, { ...c, actor: RUNTIME, ...(c.inspect ? { note: 'found by inspection' } : {}) })
  }
  const listed = new Set(offered.map(keyOf))
  for (const d of known.values()) {
    if (listed.has(keyOf(d)) || d.goneAt !== null) continue
    updateDefinition(tx, d, { goneAt: c.now })
    insertActivity(tx, { ...at, type: 'definition.gone', data: { target: definitionId(serverName, d.kind, d.key), kind: d.kind } })
  }
}

/**
 * A definition whose server offers something other than the approved one: changed, keeping the
 * approved one (auto-approved on trust=auto servers), on the record with the diff and findings.
 * Discovery, inspection and release hold a definition to its approval through here.
 */
export function holdDefinition(tx: Tx, d: ServerDefinition, c: { server: Pick<Server, 'name' | 'trust'>; actor: string; requestId: string; now: number; context: ReviewContext; note?: string }): void {
  const target = definitionId(d.serverName, d.kind, d.key)
  const auto = c.server.trust === 'auto'
  const data = {
    target, kind: d.kind, before: { status: d.status ?? 'approved', pin: d.approvedHash }, after: { status: auto ? 'approved' : 'changed', pin: d.hash },
    diff: definitionChanges(d.approved ?? {}, d.definition), findings: reviewFindings(d.definition, c.context), ...(c.note ? { note: c.note } : {}),
  }
  updateDefinition(tx, d, auto ? { status: 'approved', approved: d.definition, approvedHash: d.hash, decidedBy: c.actor, decidedAt: c.now } : { status: 'changed', decidedBy: c.actor, decidedAt: c.now })
  insertActivity(tx, { requestId: c.requestId, actor: c.actor, server: d.serverName, at: c.now, type: auto ? 'definition.auto_approved' : 'definition.changed', data })
}

/** The runtime's decision on a tool's approval record (an operator's disabling stays as it is). */
function upsertApproval(tx: Tx, serverName: string, toolName: string, v: { status: 'approved' | 'pending' | 'changed'; approved: ApprovedDefinition | null; approvedHash: string | null; decidedAt: number }, actor = RUNTIME) {
  saveApproval(tx, serverName, toolName, { ...v, decidedBy: actor })
}
