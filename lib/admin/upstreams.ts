import 'server-only'
import path from 'node:path'
import type { z } from 'zod'
import type { Db, Tx } from '@/db/client'
import { isStdio, type Transport } from '@/db/schema'
import { recordChange, type ActionContext } from '@/lib/activity/record-change'
import { deleteServer, insertServerRow, requireServer, saveSecret, serverConfig, updateServer } from '@/db/queries/servers'
import { writeTransaction } from '@/db/write'
import { mintRequestId } from '@/lib/activity/request-id'
import { badRequest } from '@/lib/core/errors'
import { describeTransport } from '@/lib/catalog/servers'
import { formatIssue, formatIssues } from '@/lib/schemas/issues'
import { configureOAuthClientIn, oauthClientValues, type OAuthClientConfig } from '@/lib/upstream/oauth'
import { addServerSchema, mcpServerEntrySchema as mcpServerEntry, mcpServersFileSchema as mcpServersFile } from '@/lib/schemas/admin'


function parse<T extends z.ZodType>(schema: T, input: unknown, prefix = ''): z.infer<T> {
  const r = schema.safeParse(input)
  if (!r.success) throw badRequest(r.error.issues.map((i) => formatIssue({ ...i, path: prefix ? [prefix, ...i.path] : i.path })).join('\n'))
  return r.data
}

/**
 * Every env value (stdio) and header value (HTTP) given to toolgate is a secret: stored apart
 * from the configuration and never printed back (not by `state dump`, `upstream list`, the
 * dashboard or logs). Empty values and `${NAME}` placeholders name secrets still to be provided
 * with set-secret. The transport keeps only the names.
 */
export function separateSecrets(t: Transport): { transport: Transport; values: Record<string, string> } {
  const given = isStdio(t) ? t.env : t.headers
  const names = new Set(t.secrets ?? [])
  const values: Record<string, string> = {}
  for (const [k, v] of Object.entries(given ?? {})) {
    names.add(k)
    if (v !== '' && !/^\$\{[^}]*\}$/.test(v)) values[k] = v
  }
  const secrets = names.size ? { secrets: [...names] } : {}
  const transport: Transport = isStdio(t)
    ? { command: t.command, ...(t.args ? { args: t.args } : {}), ...(t.cwd ? { cwd: t.cwd } : {}), ...secrets }
    : { url: t.url, ...(t.type ? { type: t.type } : {}), ...secrets }
  return { transport, values }
}

function insertServer(tx: Tx, s: z.infer<typeof addServerSchema>, ctx: ActionContext, now: number) {
  if (serverConfig(tx, s.name)) {
    throw badRequest(`server "${s.name}" already exists (remove it first, or pick another name)`)
  }
  const { transport, values } = separateSecrets(s.transport as Transport)
  insertServerRow(tx, {
    name: s.name, enabled: true, quarantined: !s.trusted, trust: s.trust, disabledTools: [], enabledTools: null,
    transport, createdAt: now, updatedAt: now,
  })
  for (const [name, value] of Object.entries(values)) saveSecret(tx, s.name, name, value, now)
  const after = { quarantined: !s.trusted, trust: s.trust, transport: describeTransport(transport), secrets: transport.secrets ?? [] }
  return { name: s.name, before: null, after, ...recordChange(tx, 'server.added', ctx, { target: s.name, before: null, after }, { server: s.name, now }) }
}

/**
 * Add one upstream, with its OAuth client when given (in the same transaction, so the runtime
 * never connects to it without one). A new server is quarantined unless added as trusted
 * (rug-pull guard).
 */
export async function addServer(db: Db, input: unknown, ctx: ActionContext, oauth?: OAuthClientConfig) {
  const s = parse(addServerSchema, input)
  if (oauth && isStdio(s.transport as Transport)) throw badRequest('OAuth settings go with a URL (an HTTP server): a stdio server takes its credentials from its environment')
  const values = oauth && oauthClientValues(oauth)
  const now = Date.now()
  // one request: the server's record and its OAuth client's carry the same id
  const one = { ...ctx, requestId: ctx.requestId ?? mintRequestId(now) }
  const added = await writeTransaction(db, (tx) => {
    const server = insertServer(tx, s, one, now)
    return { ...server, ...(oauth && values ? { oauthConfigured: configureOAuthClientIn(tx, s.name, oauth, values, one) } : {}) }
  })
  return { ...added, quarantined: added.after.quarantined }
}

/** An entry's transport; a relative `cwd` is taken from the file's own directory. */
export function transportFromMcpEntry(e: z.infer<typeof mcpServerEntry>, baseDir: string): Transport {
  if ('command' in e) return { command: e.command, ...(e.args ? { args: e.args } : {}), ...(e.env ? { env: e.env } : {}), ...(e.cwd ? { cwd: path.resolve(baseDir, e.cwd) } : {}) }
  return { url: e.url, ...(e.type === 'sse' ? { type: 'sse' as const } : {}), ...(e.headers ? { headers: e.headers } : {}) }
}

/**
 * Import the servers of an mcpServers file. Each entry stands alone: one that cannot be
 * imported (a bad name, a malformed entry, a name already taken) is reported by name, and the
 * others are imported together, in one transaction, each with its record (one request id).
 */
export async function importServers(db: Db, doc: unknown, opts: { trusted?: boolean; baseDir: string }, ctx: ActionContext) {
  const file = parse(mcpServersFile, doc)
  const entries = Object.entries(file.mcpServers)
  if (entries.length === 0) throw badRequest('mcpServers: no servers in the file')
  const refused: { name: string; error: string }[] = []
  const ok: z.infer<typeof addServerSchema>[] = []
  for (const [name, raw] of entries) {
    const entry = mcpServerEntry.safeParse(raw)
    const server = entry.success && addServerSchema.safeParse({ name, transport: transportFromMcpEntry(entry.data, opts.baseDir), trusted: opts.trusted ?? false })
    if (!entry.success) refused.push({ name, error: formatIssues(entry.error) })
    else if (server && !server.success) refused.push({ name, error: formatIssues(server.error) })
    else if (server) ok.push(server.data)
  }
  const now = Date.now()
  const requestId = ctx.requestId ?? mintRequestId(now)
  const imported: ReturnType<typeof insertServer>[] = []
  if (ok.length) await writeTransaction(db, (tx) => {
    for (const s of ok) {
      if (serverConfig(tx, s.name)) refused.push({ name: s.name, error: 'a server with this name already exists' })
      else imported.push(insertServer(tx, s, { ...ctx, requestId }, now))
    }
  })
  return { imported, refused, requestId }
}


export function removeServer(db: Db, name: string, ctx: ActionContext) {
  return writeTransaction(db, (tx) => {
    const row = requireServer(tx, name)
    deleteServer(tx, name)
    const before = { enabled: row.enabled, quarantined: row.quarantined, transport: row.transport ? describeTransport(row.transport) : null }
    return { name, before, after: null, ...recordChange(tx, 'server.removed', ctx, { target: name, before, after: null }, { server: name }) }
  })
}

/** Store a secret value. The activity record names the secret, never its value. */
export async function setSecret(db: Db, server: string, name: string, value: string, ctx: ActionContext): Promise<{ activityId: number; requestId: string }> {
  if (!name) throw badRequest('secret name must not be empty')
  if (!value) throw badRequest(`secret ${name}: the value is empty`)
  return writeTransaction(db, (tx) => {
    requireServer(tx, server)
    const now = Date.now()
    saveSecret(tx, server, name, value, now)
    return recordChange(tx, 'server.secret_set', ctx, { target: server, secret: name }, { server, now })
  })
}

/** Ask the runtime to reconnect a server (it watches restart_requested_at). */
export function requestRestart(db: Db, server: string, ctx: ActionContext): Promise<{ activityId: number; requestId: string }> {
  return writeTransaction(db, (tx) => {
    requireServer(tx, server)
    const now = Date.now()
    updateServer(tx, server, { restartRequestedAt: now })
    return recordChange(tx, 'server.restart_requested', ctx, { target: server }, { server, now })
  })
}

/**
 * What a server's stored secrets (header and env values, OAuth tokens and client) are bound to:
 * an HTTP server's origin, a stdio server's command line and the directory it starts in. A header
 * meant for one host must not follow a URL edited to point at another: a change that moves a
 * server to another target drops its secrets unless the operator keeps them on purpose.
 */
export function secretTarget(t: Transport | null | undefined): string {
  if (!t) return '(no transport)'
  return !isStdio(t) ? new URL(t.url).origin : JSON.stringify([t.command, ...(t.args ?? []), t.cwd ?? null])
}
