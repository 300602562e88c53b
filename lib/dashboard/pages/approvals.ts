import 'server-only'
import { getDb } from '@/db/client'
import { approvalsInbox } from '../approvals'

/** `/approvals`: the held calls, their arguments only for a person who may read them. The page's live poll (/api/dashboard/calls) reads the same. */
export const loadApprovals = (showArguments: boolean) => approvalsInbox(getDb(), showArguments)
