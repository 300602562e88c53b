import 'server-only'
import { firstApprovals } from '@/lib/approvals/two-person'
import type { Db } from '@/db/client'
import { knownTool } from '@/db/queries/tools'
import { readSettings } from '@/db/queries/settings'
import type { CallApproval, ToolAnnotations } from '@/db/schema'
import { callById, listCallSummaries, type CallSummary } from '@/db/queries/calls'
import { callGate, changedSinceRequested, expireCalls } from '@/lib/approvals/calls'
import { approvedOf, storedOf, type FieldChange } from '@/lib/core/definition'
import { definitionDiff } from '@/lib/approvals/definition'

/**
 * Arguments up to this many characters travel with the inbox's live poll; of larger ones the
 * poll carries this much, and the operator fetches the rest on demand (heldCallArguments).
 */
export const INBOX_ARGUMENTS_CHARS = 4_096

/** One held call as the Approvals inbox shows it: the exact call, who made it, and what the tool is. */
export interface InboxCall {
  id: string
  status: CallApproval['status']
  tool: string
  /** the tool as agents are served it (its approved definition): what the caller saw when it asked */
  title: string | null
  description: string | null
  annotations: ToolAnnotations | null
  /** the arguments when they are small; null when only their start is here, or the role reads no arguments */
  arguments: unknown
  /** the role reads no call arguments (viewer, operator): neither they nor their start are here */
  arguments_hidden: boolean
  arguments_length: number
  /** the start of the canonical JSON of arguments too large to poll (null when `arguments` has them all) */
  arguments_preview: string | null
  caller: string
  request_id: string
  created_at: string
  /** when the agent stops waiting for the answer (settings.call_approval_wait_ms after it asked): it is told "held" then, and the call stays decidable until expires_at */
  agent_waits_until: string
  expires_at: string
  decided_by: string | null
  decided_at: string | null
  /** the two-person rule's first approval, waiting for a second approver ("1 of 2") */
  first_of_two: { by: string; at: string } | null
  reason: string | null
  /** the tool's pin the call was requested under: an approval is for a call of that definition */
  pin: string | null
  /** the tool is no longer served as it was when the call was requested: it cannot be approved as it is */
  changed_since_requested: boolean
  /** what its server offers now against what is approved, field by field */
  changes: FieldChange[]
  /** for a pending call, what the gate would say were it approved now (null: it would run) */
  gate: { reason: string; detail: string } | null
}

const RECENT = 20
const PENDING = 500

function present(db: Db, c: CallSummary, showArguments: boolean, waitMs: number, firsts: Record<string, { by: string; at: string }> = {}): InboxCall {
  const tool = knownTool(db, c.serverName, c.toolName)
  // what the caller was served when it asked: the approved definition (changed or not since), else the tool as it stands
  const served = tool?.approved ? storedOf(tool.name, tool.approved) : tool
  const pending = c.status === 'pending'
  const refusal = pending ? callGate(db, c, { tier: 'agent', name: c.caller, ...(c.callerId ? { id: c.callerId } : {}), allowedServers: [], profilePin: null }, c.profile ?? undefined) : undefined
  const whole = showArguments && c.argumentsLength <= INBOX_ARGUMENTS_CHARS
  return {
    id: c.id, status: c.status, tool: `${c.serverName}:${c.toolName}`, title: served?.title ?? null, description: served?.description ?? null,
    annotations: served?.annotations ?? null,
    arguments: whole ? JSON.parse(c.argumentsPrefix) : null, arguments_hidden: !showArguments, arguments_length: c.argumentsLength,
    arguments_preview: whole || !showArguments ? null : c.argumentsPrefix,
    caller: c.caller, request_id: c.requestId,
    created_at: new Date(c.createdAt).toISOString(), agent_waits_until: new Date(c.createdAt + waitMs).toISOString(), expires_at: new Date(c.expiresAt).toISOString(), decided_by: c.decidedBy, decided_at: c.decidedAt === null ? null : new Date(c.decidedAt).toISOString(), first_of_two: firsts[c.id] ?? null, reason: c.reason,
    pin: c.pin, changed_since_requested: pending && changedSinceRequested(db, c),
    changes: tool?.approved && tool.approvedHash !== tool.hash ? definitionDiff(tool.approved, approvedOf(tool)) : [],
    gate: refusal ? { reason: refusal.reason, detail: refusal.detail } : null,
  }
}

/** The calls waiting for an operator (oldest first: first come, first decided) and the latest decisions; arguments only for a role that reads them. */
export async function approvalsInbox(db: Db, showArguments: boolean): Promise<{ pending: InboxCall[]; recent: InboxCall[] }> {
  await expireCalls(db)
  const firsts = firstApprovals(db, 'call')
  const wait = readSettings(db).callApprovalWaitMs
  return {
    pending: listCallSummaries(db, 'pending', PENDING, INBOX_ARGUMENTS_CHARS).reverse().map((c) => present(db, c, showArguments, wait, firsts)),
    recent: listCallSummaries(db, undefined, RECENT + 50, INBOX_ARGUMENTS_CHARS).filter((c) => c.status !== 'pending').slice(0, RECENT).map((c) => present(db, c, showArguments, wait)),
  }
}
export type ApprovalsInbox = Awaited<ReturnType<typeof approvalsInbox>>

/** All of one held call's arguments, as the operator asked to see them (at most the 1 MiB a request body may carry). */
export function heldCallArguments(db: Db, id: string): unknown {
  const c = callById(db, id)
  return c && JSON.parse(c.arguments)
}
