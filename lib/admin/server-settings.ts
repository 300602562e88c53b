import 'server-only'
import { eq } from 'drizzle-orm'
import type { Db, Tx } from '@/db/client'
import { writeTransaction } from '@/db/write'
import { servers } from '@/db/schema'
import { badRequest } from '@/lib/errors'
import { requireServer } from './require'
import { parseToolId } from '@/lib/preflight/ids'
import { recordChange } from './record-change'
import type { ServerSettings } from './schemas'
import type { ActionContext } from './tools'

const dedupe = (names: readonly string[]) => [...new Set(names)]

/** Read, change and record in one immediate transaction, so the "before" is what was replaced. */
function changeSettings(db: Db, name: string, update: (before: ServerSettings) => ServerSettings, ctx: ActionContext) {
  return writeTransaction(db, (tx: Tx) => {
    const { disabledTools, enabledTools, trust } = requireServer(tx, name)
    const before: ServerSettings = { disabledTools: [...disabledTools], enabledTools: enabledTools && [...enabledTools], trust }
    const next = update(before)
    const after: ServerSettings = {
      disabledTools: dedupe(next.disabledTools),
      enabledTools: next.enabledTools === null ? null : dedupe(next.enabledTools),
      trust: next.trust,
    }
    const now = Date.now()
    tx.update(servers).set({ ...after, updatedAt: now }).where(eq(servers.name, name)).run()
    return { name, before, after, ...recordChange(tx, 'server.configured', ctx, { target: name, before, after }, { server: name, now }) }
  })
}

/** Replace a server's tool configuration and trust (the `configure` remediation), on the record. */
export const configureServer = (db: Db, name: string, settings: ServerSettings, ctx: ActionContext) =>
  changeSettings(db, name, () => settings, ctx)

/** Let one tool through its server's configuration: off the denylist and, with an allowlist, onto it. */
export function allowToolInConfig(db: Db, id: string, ctx: ActionContext) {
  const parsed = parseToolId(id)
  if ('malformed' in parsed) throw badRequest(`"${id}" is not a tool id: expected <server>:<tool>`)
  return changeSettings(db, parsed.server, (s) => ({
    trust: s.trust,
    disabledTools: s.disabledTools.filter((t) => t !== parsed.tool),
    enabledTools: s.enabledTools === null ? null : [...s.enabledTools, parsed.tool],
  }), ctx)
}
