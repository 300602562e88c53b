import 'server-only'
import type { Db } from '@/db/client'
import { knownTool } from '@/db/queries/tools'
import type { CallApproval, ToolAnnotations } from '@/db/schema'
import { expireCalls, listCalls } from '@/lib/approvals/calls'

/** One held call as the Approvals inbox shows it: the exact call, who made it, and what the tool is. */
export interface InboxCall {
  id: string
  status: CallApproval['status']
  tool: string
  title: string | null
  description: string | null
  annotations: ToolAnnotations | null
  arguments: unknown
  caller: string
  request_id: string
  created_at: string
  expires_at: string
  decided_by: string | null
  reason: string | null
}

const RECENT = 20

function present(db: Db, c: CallApproval): InboxCall {
  const tool = knownTool(db, c.serverName, c.toolName)
  return {
    id: c.id, status: c.status, tool: `${c.serverName}:${c.toolName}`, title: tool?.title ?? null, description: tool?.description ?? null,
    annotations: tool?.annotations ?? null, arguments: JSON.parse(c.arguments), caller: c.caller, request_id: c.requestId,
    created_at: new Date(c.createdAt).toISOString(), expires_at: new Date(c.expiresAt).toISOString(), decided_by: c.decidedBy, reason: c.reason,
  }
}

/** The calls waiting for an operator (oldest first: first come, first decided) and the latest decisions. */
export async function approvalsInbox(db: Db): Promise<{ pending: InboxCall[]; recent: InboxCall[] }> {
  await expireCalls(db)
  return {
    pending: listCalls(db, 'pending', 500).reverse().map((c) => present(db, c)),
    recent: listCalls(db, undefined, RECENT + 50).filter((c) => c.status !== 'pending').slice(0, RECENT).map((c) => present(db, c)),
  }
}
export type ApprovalsInbox = Awaited<ReturnType<typeof approvalsInbox>>
