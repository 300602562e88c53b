import type { Db } from '../../db/client'
import { approveTool, blockTool, enableTool, type ActionContext } from './tools'

const verbs = { approve: approveTool, block: blockTool, enable: enableTool }
export type BulkVerb = keyof typeof verbs

/**
 * Approve, block or unblock many tools as ONE transaction: all of them change, or none does.
 * The per-tool mutations nest inside it (better-sqlite3 turns inner transactions into
 * savepoints), so each still writes its own activity record with before/after.
 */
export function changeTools(db: Db, verb: BulkVerb, ids: readonly string[], ctx: ActionContext) {
  return db.$client.transaction(() => ids.map((id) => verbs[verb](db, id, ctx))).immediate()
}
