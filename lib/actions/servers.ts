'use server'

import 'server-only'
import { z } from 'zod'
import { changeTools } from '@/lib/admin/bulk-tools'
import { serverNameSchema, serverSettingsSchema } from '@/lib/admin/schemas'
import { configureServer } from '@/lib/admin/server-settings'
import { disableServer, enableServer, quarantineServer, unquarantineServer } from '@/lib/admin/servers'
import { operatorAction } from './safe-action'

const stateChanges = { enable: enableServer, disable: disableServer, quarantine: quarantineServer, release: unquarantineServer }

/** Enable, disable, quarantine or release a server (admin state only; connection health is the runtime's). */
export const setServerState = operatorAction(
  z.strictObject({ server: serverNameSchema, change: z.enum(['enable', 'disable', 'quarantine', 'release']) }),
  async ({ server, change }, { db, actor }) => (await stateChanges[change](db, server, { actor })).after,
  { refresh: true },
)

/** Replace a server's disabled_tools / enabled_tools / trust. */
export const saveServerSettings = operatorAction(
  z.strictObject({ server: serverNameSchema, settings: serverSettingsSchema }),
  async ({ server, settings }, { db, actor }) => (await configureServer(db, server, settings, { actor })).after,
  { refresh: true },
)

/** Approve, block or unblock one or many tools, as one transaction. */
export const changeToolsAction = operatorAction(
  z.strictObject({
    verb: z.enum(['approve', 'block', 'enable']),
    ids: z.array(z.string().trim().min(3, 'a tool id is <server>:<tool>')).min(1, 'select at least one tool').max(1000),
  }),
  async ({ verb, ids }, { db, actor }) => (await changeTools(db, verb, ids, { actor })).length,
  { refresh: true },
)
