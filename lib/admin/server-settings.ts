import 'server-only'
import type { Db, Tx } from '@/db/client'
import { writeTransaction } from '@/db/write'
import { requireServer, updateServer } from '@/db/queries/servers'
import { badRequest, notFoundError } from '@/lib/core/errors'
import { knownTool } from '@/db/queries/tools'
import { parseToolId } from '@/lib/preflight/ids'
import { recordChange, type ActionContext } from '@/lib/activity/record-change'
import { serverSettingsSchema, type ServerSettings } from '@/lib/schemas/admin'
import { formatIssues } from '@/lib/schemas/issues'

const dedupe = (names: readonly string[]) => [...new Set(names)]

/** Read, change and record in one immediate transaction, so the "before" is what was replaced. */
function changeSettings(db: Db, name: string, update: (before: ServerSettings) => ServerSettings, ctx: ActionContext) {
  return writeTransaction(db, (tx: Tx) => {
    const { disabledTools, enabledTools, trust, callTimeoutMs, roots, isolation, sampling } = requireServer(tx, name)
    const before: ServerSettings = { disabledTools: [...disabledTools], enabledTools: enabledTools && [...enabledTools], trust, callTimeoutMs, roots, isolation, sampling }
    const next = update(before)
    const after: ServerSettings = {
      ...next,
      disabledTools: dedupe(next.disabledTools),
      enabledTools: next.enabledTools === null ? null : dedupe(next.enabledTools),
    }
    const now = Date.now()
    updateServer(tx, name, { ...after, updatedAt: now })
    return { name, before, after, ...recordChange(tx, 'server.configured', ctx, { target: name, before, after }, { server: name, now }) }
  })
}

/**
 * Change a server's tool configuration, trust, call timeout, roots, isolation and sampling (the
 * `configure` remediation), on the record. A change of roots or sampling reconnects the server
 * (lib/upstream/supervisor.ts): what toolgate declares to it is fixed per connection.
 */
export function configureServer(db: Db, name: string, change: unknown, ctx: ActionContext) {
  const parsed = serverSettingsSchema.partial().safeParse(change)
  if (!parsed.success) throw badRequest(formatIssues(parsed.error))
  return changeSettings(db, name, (before) => ({ ...before, ...parsed.data }), ctx)
}

/** Let one tool through its server's configuration: off the denylist and, with an allowlist, onto it. */
export async function allowToolInConfig(db: Db, id: string, ctx: ActionContext, opts: { confirm?: boolean } = {}) {
  const parsed = parseToolId(id)
  if ('malformed' in parsed) throw badRequest(`"${id}" is not a tool id: expected <server>:<tool>`)
  // the configuration denies it on purpose: lifting that takes an explicit yes
  if (!opts.confirm) throw badRequest(`${parsed.id} is denied by server "${parsed.server}"'s configuration: confirm to allow it (--yes)`)
  return changeSettings(db, parsed.server, (s) => ({
    ...s,
    disabledTools: s.disabledTools.filter((t) => t !== parsed.tool),
    enabledTools: s.enabledTools === null ? null : [...s.enabledTools, parsed.tool],
  }), ctx)
}

/**
 * Put one tool under call approval (every call waits for an operator's decision on that exact
 * call), or take it off. The tool stays `ready` in preflight: it is callable.
 */
export function setCallApproval(db: Db, id: string, on: boolean, ctx: ActionContext) {
  const parsed = parseToolId(id)
  if ('malformed' in parsed) throw badRequest(`"${id}" is not a tool id: expected <server>:<tool>`)
  return writeTransaction(db, (tx: Tx) => {
    if (!knownTool(tx, parsed.server, parsed.tool)) throw notFoundError(`no tool "${parsed.id}" is known to toolgate`)
    const list = requireServer(tx, parsed.server).callApprovalTools
    const before = { call_approval: list.includes(parsed.tool) }
    const next = on ? [...new Set([...list, parsed.tool])] : list.filter((t) => t !== parsed.tool)
    const now = Date.now()
    updateServer(tx, parsed.server, { callApprovalTools: next, updatedAt: now })
    const after = { call_approval: on }
    return { id: parsed.id, before, after, ...recordChange(tx, 'tool.call_approval', ctx, { target: parsed.id, before, after }, { server: parsed.server, now }) }
  })
}
