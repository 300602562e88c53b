import 'server-only'
import type { Db } from '@/db/client'
import { knownTool } from '@/db/queries/tools'
import type { CallApproval, ToolAnnotations } from '@/db/schema'
import { callById, expireCalls, listCallSummaries, type CallSummary } from '@/lib/approvals/calls'

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
  title: string | null
  description: string | null
  annotations: ToolAnnotations | null
  /** the arguments when they are small; null when only their start is here */
  arguments: unknown
  arguments_length: number
  /** the start of the canonical JSON of arguments too large to poll (null when `arguments` has them all) */
  arguments_preview: string | null
  caller: string
  request_id: string
  created_at: string
  expires_at: string
  decided_by: string | null
  reason: string | null
}

const RECENT = 20
const PENDING = 500

function present(db: Db, c: CallSummary): InboxCall {
  const tool = knownTool(db, c.serverName, c.toolName)
  const whole = c.argumentsLength <= INBOX_ARGUMENTS_CHARS
  return {
    id: c.id, status: c.status, tool: `${c.serverName}:${c.toolName}`, title: tool?.title ?? null, description: tool?.description ?? null,
    annotations: tool?.annotations ?? null,
    arguments: whole ? JSON.parse(c.argumentsPrefix) : null, arguments_length: c.argumentsLength, arguments_preview: whole ? null : c.argumentsPrefix,
    caller: c.caller, request_id: c.requestId,
    created_at: new Date(c.createdAt).toISOString(), expires_at: new Date(c.expiresAt).toISOString(), decided_by: c.decidedBy, reason: c.reason,
  }
}

/** The calls waiting for an operator (oldest first: first come, first decided) and the latest decisions. */
export async function approvalsInbox(db: Db): Promise<{ pending: InboxCall[]; recent: InboxCall[] }> {
  await expireCalls(db)
  return {
    pending: listCallSummaries(db, 'pending', PENDING, INBOX_ARGUMENTS_CHARS).reverse().map((c) => present(db, c)),
    recent: listCallSummaries(db, undefined, RECENT + 50, INBOX_ARGUMENTS_CHARS).filter((c) => c.status !== 'pending').slice(0, RECENT).map((c) => present(db, c)),
  }
}
export type ApprovalsInbox = Awaited<ReturnType<typeof approvalsInbox>>

/** All of one held call's arguments, as the operator asked to see them (at most the 1 MiB a request body may carry). */
export function heldCallArguments(db: Db, id: string): unknown {
  const c = callById(db, id)
  return c && JSON.parse(c.arguments)
}
