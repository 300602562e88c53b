'use server'

import 'server-only'
import { changeTools } from '@/lib/admin/bulk-tools'
import { approveDefinitionSchema, callApprovalSchema, changeToolsSchema, releaseSchema, serverSchema, serverSettingsInputSchema, serverStateSchema, type ServerStateChange } from '@/lib/schemas/actions'
import { configureServer, setCallApproval } from '@/lib/admin/server-settings'
import { approveDefinition } from '@/lib/admin/definitions'
import { disableServer, enableServer, quarantineServer, requestInspection, unquarantineServer } from '@/lib/admin/servers'
import { operatorAction } from './safe-action'
import { isDestructive, releaseRequester, twoPersonGate } from '@/lib/approvals/two-person'
import { releaseSubject } from '@/lib/approvals/two-person-subjects'

const stateChanges = { enable: enableServer, disable: disableServer, quarantine: quarantineServer } satisfies Record<ServerStateChange, unknown>

/** Enable, disable or quarantine a server (admin state only; connection health is the runtime's). Release reviews first: releaseAction. */
export const setServerState = operatorAction('operate',
  serverStateSchema,
  async ({ server, change }, { db, by }) => (await stateChanges[change](db, server, by)).after,
  { refresh: true },
)

/** Replace a server's disabled_tools / enabled_tools / trust. */
export const saveServerSettings = operatorAction('approve',
  serverSettingsInputSchema,
  async ({ server, settings }, { db, by }) => (await configureServer(db, server, settings, by)).after,
  { refresh: true },
)

/**
 * Approve, block or unblock one or many tools, as one transaction. An approval from the
 * dashboard always names the pin of each definition the operator was shown.
 */
export const changeToolsAction = operatorAction('approve',
  changeToolsSchema,
  async ({ verb, ids, hashes, confirm }, { db, by }) => {
    let run = ids
    if (verb === 'approve') {
      // the two-person rule: a first approval is kept ("1 of 2"); only second approvals run now
      run = []
      for (const id of ids) if ((await twoPersonGate(db, { kind: 'tool', target: id, subject: hashes![id], destructive: isDestructive(db, id) }, by)).proceed) run.push(id)
      if (run.length === 0) return 0
    }
    return (await changeTools(db, verb, run, by, { hashes, confirm })).length
  },
  { refresh: true },
)

/** Put a tool under call approval, or take it off. */
export const callApprovalAction = operatorAction('approve',
  callApprovalSchema,
  async ({ id, on }, { db, by }) => (await setCallApproval(db, id, on, by)).after.call_approval,
  { refresh: true },
)

/** Ask the runtime to inspect a quarantined server: its tools listed for review, never served. */
export const inspectAction = operatorAction('operate',
  serverSchema,
  async ({ server }, { db, by }) => { await requestInspection(db, server, by); return server },
  { refresh: true },
)

/** Release a quarantined server, approving exactly the definitions shown (tool → pin; instructions, prompts and resources: id → pin). */
export const releaseAction = operatorAction('approve',
  releaseSchema,
  async ({ server, shown, shownDefinitions, confirm }, { db, by }) => {
    const gate = await twoPersonGate(db, {
      kind: 'release', target: server, subject: releaseSubject(shown, shownDefinitions),
      destructive: Object.keys(shown).some((tool) => isDestructive(db, `${server}:${tool}`)), requester: releaseRequester(db, server),
    }, by)
    return gate.proceed ? (await unquarantineServer(db, server, by, shown, { confirm, shownDefinitions })).after : gate
  },
  { refresh: true },
)

/** Approve a server's instructions, a prompt, a resource or a template exactly as reviewed: the action carries the pin shown. */
export const approveDefinitionAction = operatorAction('approve',
  approveDefinitionSchema,
  async ({ group, id, hash }, { db, by }) => {
    const gate = await twoPersonGate(db, { kind: 'definition', target: id, subject: hash, destructive: false }, by)
    return gate.proceed ? (await approveDefinition(db, group, id, by, { hash })).after.status : gate
  },
  { refresh: true },
)
