'use server'

import 'server-only'
import { z } from 'zod'
import { addServer, importServers } from '@/lib/admin/upstreams'
import { badRequest } from '@/lib/core/errors'
import { projectRoot } from '@/lib/core/paths'
import { operatorAction } from './safe-action'

/**
 * Add a server from the dashboard's form: the same lib/admin function `toolgate upstream add`
 * calls, which validates the name and transport (its errors name the field) and quarantines it
 * unless trusted.
 */
export const addServerAction = operatorAction(
  'admin',
  z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('stdio'), name: z.string().max(200), command: z.string().trim().min(1, 'give the program that starts the server'), args: z.array(z.string().max(4096)).max(100), trusted: z.boolean() }),
    z.strictObject({ kind: z.literal('http'), name: z.string().max(200), url: z.string().trim().min(1, 'give the server\'s MCP endpoint, https://…/mcp'), trusted: z.boolean() }),
  ], { error: 'kind: choose stdio (a command) or http (a URL)' }),
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
  z.strictObject({ json: z.string().trim().min(1, 'paste an {"mcpServers": {…}} document').max(200_000, 'at most 200,000 characters'), trusted: z.boolean() }),
  ({ json, trusted }, { db, by }) => {
    let doc: unknown
    try {
      doc = JSON.parse(json)
    } catch (e) {
      throw badRequest(`json: not valid JSON: ${(e as Error).message}`)
    }
    return importServers(db, doc, { trusted, baseDir: projectRoot() }, by)
  },
  { refresh: true },
)
