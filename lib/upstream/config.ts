import { asc, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { Db, Tx } from '../../db/client'
import { serverConnections, serverSecrets, servers, type Transport } from '../../db/schema'
import { recordActivity } from '../activity/record'
import { mintRequestId } from '../activity/request-id'
import { badRequest, notFoundError } from '../errors'
import { formatIssue } from '../preflight/schemas'
import { transportSchema } from '../state/schema'
import type { ActionContext } from '../admin/tools'

export const serverNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'server names use letters, digits, "_", "." and "-" (max 64; no ":")')

export const addServerSchema = z.strictObject({
  name: serverNameSchema,
  transport: transportSchema,
  // trusted = not quarantined on arrival; its first discovery becomes the approved baseline
  trusted: z.boolean().default(false),
  trust: z.enum(['manual', 'auto']).default('manual'),
})
export type AddServerInput = z.input<typeof addServerSchema>

function parse<T extends z.ZodType>(schema: T, input: unknown, prefix = ''): z.infer<T> {
  const r = schema.safeParse(input)
  if (!r.success) throw badRequest(r.error.issues.map((i) => formatIssue({ ...i, path: prefix ? [prefix, ...i.path] : i.path })).join('\n'))
  return r.data
}

function insertServer(tx: Tx, s: z.infer<typeof addServerSchema>, ctx: ActionContext, now: number) {
  if (tx.select({ n: servers.name }).from(servers).where(eq(servers.name, s.name)).get()) {
    throw badRequest(`server "${s.name}" already exists (remove it first, or pick another name)`)
  }
  tx.insert(servers).values({
    name: s.name, enabled: true, quarantined: !s.trusted, trust: s.trust, disabledTools: [], enabledTools: null,
    transport: s.transport as Transport, createdAt: now, updatedAt: now,
  }).run()
  recordActivity(tx, {
    requestId: ctx.requestId ?? mintRequestId(now), type: 'server.added', actor: ctx.actor, server: s.name, at: now,
    data: { target: s.name, after: { quarantined: !s.trusted, trust: s.trust, transport: describeTransport(s.transport) } },
  })
}

/** Add one upstream. A new server is quarantined unless added as trusted (rug-pull guard). */
export function addServer(db: Db, input: unknown, ctx: ActionContext): { name: string; quarantined: boolean } {
  const s = parse(addServerSchema, input)
  db.transaction((tx) => insertServer(tx, s, ctx, Date.now()), { behavior: 'immediate' })
  return { name: s.name, quarantined: !s.trusted }
}

/** `{"mcpServers": {...}}` as common MCP clients write it. */
const mcpServerEntry = z.union([
  z.object({ command: z.string().min(1), args: z.array(z.string()).optional(), env: z.record(z.string(), z.string()).optional() }),
  z.object({ url: z.url({ protocol: /^https?$/ }), headers: z.record(z.string(), z.string()).optional(), type: z.enum(['http', 'streamable-http', 'streamableHttp']).optional() }),
])
const mcpServersFile = z.object({ mcpServers: z.record(serverNameSchema, mcpServerEntry) })

/** Empty values and `${NAME}` placeholders are secrets to be provided with set-secret. */
function splitSecrets(values: Record<string, string> | undefined): { values?: Record<string, string>; secrets?: string[] } {
  if (!values) return {}
  const kept: Record<string, string> = {}
  const secrets: string[] = []
  for (const [k, v] of Object.entries(values)) {
    if (v === '' || /^\$\{[^}]*\}$/.test(v)) secrets.push(k)
    else kept[k] = v
  }
  return { values: kept, ...(secrets.length ? { secrets } : {}) }
}

export function transportFromMcpEntry(e: z.infer<typeof mcpServerEntry>): Transport {
  if ('command' in e) {
    const { values, secrets } = splitSecrets(e.env)
    return { command: e.command, ...(e.args ? { args: e.args } : {}), ...(values && Object.keys(values).length ? { env: values } : {}), ...(secrets ? { secrets } : {}) }
  }
  const { values, secrets } = splitSecrets(e.headers)
  return { url: e.url, ...(values && Object.keys(values).length ? { headers: values } : {}), ...(secrets ? { secrets } : {}) }
}

/** Import every server of an mcpServers file, all or nothing. */
export function importServers(db: Db, doc: unknown, opts: { trusted?: boolean }, ctx: ActionContext): string[] {
  const file = parse(mcpServersFile, doc)
  const entries = Object.entries(file.mcpServers)
  if (entries.length === 0) throw badRequest('mcpServers: no servers in the file')
  const now = Date.now()
  const requestId = ctx.requestId ?? mintRequestId(now)
  db.transaction((tx) => {
    for (const [name, entry] of entries) {
      insertServer(tx, { name, transport: transportFromMcpEntry(entry), trusted: opts.trusted ?? false, trust: 'manual' }, { ...ctx, requestId }, now)
    }
  }, { behavior: 'immediate' })
  return entries.map(([n]) => n)
}

function requireServer(tx: Tx, name: string) {
  const row = tx.select().from(servers).where(eq(servers.name, name)).get()
  if (!row) throw notFoundError(`no server "${name}" is configured`)
  return row
}

export function removeServer(db: Db, name: string, ctx: ActionContext): void {
  db.transaction((tx) => {
    const row = requireServer(tx, name)
    tx.delete(servers).where(eq(servers.name, name)).run()
    recordActivity(tx, {
      requestId: ctx.requestId ?? mintRequestId(), type: 'server.removed', actor: ctx.actor, server: name,
      data: { target: name, before: { enabled: row.enabled, quarantined: row.quarantined, transport: row.transport ? describeTransport(row.transport) : null } },
    })
  }, { behavior: 'immediate' })
}

/** Store a secret value. The activity record names the secret, never its value. */
export function setSecret(db: Db, server: string, name: string, value: string, ctx: ActionContext): void {
  if (!name) throw badRequest('secret name must not be empty')
  if (!value) throw badRequest(`secret ${name}: the value is empty`)
  db.transaction((tx) => {
    requireServer(tx, server)
    const now = Date.now()
    tx.insert(serverSecrets).values({ serverName: server, name, value, updatedAt: now })
      .onConflictDoUpdate({ target: [serverSecrets.serverName, serverSecrets.name], set: { value, updatedAt: now } }).run()
    recordActivity(tx, { requestId: ctx.requestId ?? mintRequestId(now), type: 'server.secret_set', actor: ctx.actor, server, at: now, data: { target: server, secret: name } })
  }, { behavior: 'immediate' })
}

/** Ask the runtime to reconnect a server (it watches restart_requested_at). */
export function requestRestart(db: Db, server: string, ctx: ActionContext): void {
  db.transaction((tx) => {
    requireServer(tx, server)
    const now = Date.now()
    tx.update(servers).set({ restartRequestedAt: now }).where(eq(servers.name, server)).run()
    recordActivity(tx, { requestId: ctx.requestId ?? mintRequestId(now), type: 'server.restart_requested', actor: ctx.actor, server, at: now, data: { target: server } })
  }, { behavior: 'immediate' })
}

/** A one-line, secret-free description of a transport. */
export function describeTransport(t: Transport): string {
  return 'command' in t ? [t.command, ...(t.args ?? [])].join(' ') : t.url
}

export interface UpstreamRow {
  name: string
  enabled: boolean
  quarantined: boolean
  trust: 'manual' | 'auto'
  transport: string | null
  missingSecrets: string[]
  connection: string
  detail: string | null
}

/** Servers with admin state and connection health side by side. */
export function listUpstreams(db: Db): UpstreamRow[] {
  const secrets = db.select({ server: serverSecrets.serverName, name: serverSecrets.name }).from(serverSecrets).all()
  return db.select({ s: servers, c: serverConnections }).from(servers)
    .leftJoin(serverConnections, eq(serverConnections.serverName, servers.name)).orderBy(asc(servers.name)).all()
    .map(({ s, c }) => ({
      name: s.name, enabled: s.enabled, quarantined: s.quarantined, trust: s.trust,
      transport: s.transport ? describeTransport(s.transport) : null,
      missingSecrets: (s.transport?.secrets ?? []).filter((n) => !secrets.some((x) => x.server === s.name && x.name === n)),
      connection: c?.state ?? 'unpublished', detail: c?.detail ?? null,
    }))
}
