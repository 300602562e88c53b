'use server'

import 'server-only'
import { addServer, importServers } from '@/lib/admin/upstreams'
import { badRequest } from '@/lib/core/errors'
import { projectRoot } from '@/lib/core/paths'
import { addServerFormSchema, importServersFormSchema } from '@/lib/schemas/actions'
import { operatorAction } from './safe-action'

/**
 * Add a server from the dashboard's form: the same lib/admin function `toolgate upstream add`
 * calls, which validates the name and transport (its errors name the field) and quarantines it
 * unless trusted.
 */
export const addServerAction = operatorAction(
  'admin',
  addServerFormSchema,
  (i, { db, by }) => addServer(db, {
    name: i.name.trim(),
    transport: i.kind === 'stdio' ? { command: i.command, ...(i.args.length ? { args: i.args } : {}) } : { url: i.url },
    trusted: i.trusted,
  }, by),
  { refresh: true },
)

/**
 * Import a pasted `{"mcpServers": {...}}` document, as `toolgate upstream import` does a file:
 * each entry stands alone (a refused one is named with why), the rest are added in one
 * transaction. A relative cwd is taken from the project root, where toolgate runs.
 */
export const importServersAction = operatorAction(
  'admin',
  importServersFormSchema,
  async ({ json, trusted }, { db, by }) => {
    let doc: unknown
    try {
      doc = JSON.parse(json)
    } catch (e) {
      throw badRequest(`json: not valid JSON: ${(e as Error).message}`)
    }
    const { imported, refused } = await importServers(db, doc, { trusted, baseDir: projectRoot() }, by)
    // the form names what was imported and what was refused
    return { imported: imported.map((s) => s.name), refused }
  },
  { refresh: true },
)
