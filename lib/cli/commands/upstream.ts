import { readFileSync } from 'node:fs'
import path from 'node:path'
import { cliActor, one, openCliDb, outputFormat, parse, parseDuration, UsageError } from '@/lib/cli/args'
import { table } from '@/lib/cli/output'
import { disableServer, enableServer, quarantineServer, unquarantineServer } from '@/lib/admin/servers'
import { addServer, importServers, removeServer, requestRestart, setSecret } from '@/lib/admin/upstreams'
import { configureServer } from '@/lib/admin/server-settings'
import { serverRows } from '@/lib/catalog/servers'
import { toolInventory } from '@/lib/catalog/inventory'
import { managedServers, serverState } from '@/db/queries/servers'
import { inspectServer } from '@/lib/upstream/connection'
import { readLogs } from '@/db/queries/upstream'
import { startLogin } from '@/lib/upstream/oauth'

const mutations = { enable: enableServer, disable: disableServer, quarantine: quarantineServer, unquarantine: unquarantineServer }

const USAGE = `usage:
  toolgate upstream list [-o json]
  toolgate upstream add <name> (--command CMD [--arg A]... [--env K=V]... [--cwd DIR] | --url URL [--sse] [--header 'K: V']...) [--secret NAME]... [--trusted] [--trust auto]
  toolgate upstream import <mcpServers.json> [--trusted]
  toolgate upstream set <name> [--call-timeout 15m] [--root file:///dir]... [--no-roots] [--trust manual|auto]
  toolgate upstream remove <name>
  toolgate upstream enable|disable|quarantine|unquarantine|restart <name>
  toolgate upstream inspect <name>                       (a quarantined server: list its tools for review, serve nothing)
  toolgate upstream set-secret <name> <SECRET_NAME>      (the value is read from stdin)
  toolgate upstream login <name> [--url <toolgate base URL>]
  toolgate upstream logs <name> [--lines N]`

function pairs(values: string[] | undefined, sep: string, flag: string): Record<string, string> | undefined {
  if (!values?.length) return undefined
  return Object.fromEntries(values.map((v) => {
    const at = v.indexOf(sep)
    if (at <= 0) throw new UsageError(`${flag} must look like NAME${sep}VALUE, not "${v}"`)
    return [v.slice(0, at).trim(), v.slice(at + 1).trim()]
  }))
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '')
}

export async function upstreamCommand(sub: string | undefined, argv: string[]): Promise<number> {
  const actor = { actor: cliActor() }
  if (sub === 'enable' || sub === 'disable' || sub === 'quarantine' || sub === 'unquarantine') {
    const { values, positionals } = parse(argv, {})
    const r = await mutations[sub](openCliDb(values.db), one(positionals, 'server name'), actor)
    const fmt = (s: typeof r.before) => `${s.enabled ? 'enabled' : 'disabled'}${s.quarantined ? ', quarantined' : ''}`
    console.log(`${r.name}: ${fmt(r.before)} → ${fmt(r.after)}  (activity ${r.activityId}, request_id ${r.requestId})${r.note ? `\n  ${r.note}` : ''}`)
    return 0
  }
  if (sub === 'inspect') {
    // Starting a stdio server runs its code: this is the operator asking for exactly that, here.
    const { values, positionals } = parse(argv, {})
    const db = openCliDb(values.db)
    const name = one(positionals, 'server name')
    const state = serverState(db, name)
    if (!state) throw new UsageError(`no server "${name}" is configured`)
    if (!state.quarantined) throw new UsageError(`server "${name}" is not quarantined: its tools are listed already (toolgate tools list --server ${name})`)
    if (!state.transport) throw new UsageError(`server "${name}" has no transport: its tools come from a state file (toolgate tools list --server ${name})`)
    const secrets = Object.fromEntries(managedServers(db).filter((s) => s.name === name).flatMap((s) => Object.entries(s.secrets)))
    const log = (stream: 'stderr' | 'event', line: string) => { if (stream === 'stderr') process.stderr.write(`${name}: ${line}\n`) }
    const n = await inspectServer(db, { name, transport: state.transport, secrets }, { baseUrl: process.env.TOOLGATE_URL ?? 'http://127.0.0.1:3000', connectTimeoutMs: 30_000 }, log)
    const rows = toolInventory(db, name)
    if (outputFormat(values.output) === 'json') console.log(JSON.stringify(rows, null, 2))
    else console.log([`inspected ${name}: ${n} tools listed for review; the server stays quarantined (nothing is served or called).`,
      table(['ID', 'PIN', 'DESCRIPTION'], rows.map((r) => [r.id, r.pin ?? '-', (r.description ?? '').slice(0, 80)])),
      `Review one with toolgate tools show <id>; release with toolgate upstream unquarantine ${name} (approves exactly these definitions).`].join('\n'))
    return 0
  }
  if (sub === 'list') {
    const { values } = parse(argv, {})
    const rows = serverRows(openCliDb(values.db)).map((r) => ({
      name: r.name, enabled: r.enabled, quarantined: r.quarantined, trust: r.trust, transport: r.transport, missingSecrets: r.missingSecrets,
      connection: r.connection?.state ?? 'unpublished', detail: r.connection?.detail ?? null, health: r.health, tools: r.tools,
    }))
    if (outputFormat(values.output) === 'json') console.log(JSON.stringify(rows, null, 2))
    else console.log(table(['NAME', 'ADMIN', 'TRUST', 'CONNECTION', 'TRANSPORT', 'DETAIL'], rows.map((r) => [
      r.name, `${r.enabled ? 'enabled' : 'disabled'}${r.quarantined ? ', quarantined' : ''}`, r.trust, r.connection,
      r.transport ?? '(state file)', [r.detail, r.missingSecrets.length ? `missing secrets: ${r.missingSecrets.join(', ')}` : ''].filter(Boolean).join('; '),
    ])))
    return 0
  }
  if (sub === 'add') {
    const { values, positionals } = parse(argv, {
      command: { type: 'string' }, arg: { type: 'string', multiple: true }, env: { type: 'string', multiple: true },
      cwd: { type: 'string' }, url: { type: 'string' }, sse: { type: 'boolean' }, header: { type: 'string', multiple: true },
      secret: { type: 'string', multiple: true }, trusted: { type: 'boolean' }, trust: { type: 'string' },
    })
    const name = one(positionals, 'server name')
    if (!values.command === !values.url) throw new UsageError('give exactly one of --command (stdio) or --url (Streamable HTTP)')
    const secrets = values.secret?.length ? { secrets: values.secret } : {}
    if (values.command ? values.sse : values.cwd) throw new UsageError(values.command ? '--sse goes with --url' : '--cwd goes with --command')
    const transport = values.command
      ? { command: values.command, ...(values.arg ? { args: values.arg } : {}), ...(values.env ? { env: pairs(values.env, '=', '--env') } : {}), ...(values.cwd ? { cwd: path.resolve(values.cwd) } : {}), ...secrets }
      : { url: values.url, ...(values.sse ? { type: 'sse' } : {}), ...(values.header ? { headers: pairs(values.header, ':', '--header') } : {}), ...secrets }
    const r = await addServer(openCliDb(values.db), { name, transport, trusted: values.trusted ?? false, ...(values.trust ? { trust: values.trust } : {}) }, actor)
    console.log(r.quarantined
      ? `added ${name} (quarantined: review it, then toolgate upstream unquarantine ${name})`
      : `added ${name} (trusted: its first discovery becomes the approved baseline)`)
    return 0
  }
  if (sub === 'import') {
    const { values, positionals } = parse(argv, { trusted: { type: 'boolean' } })
    const file = one(positionals, 'mcpServers JSON file')
    let doc: unknown
    try {
      doc = JSON.parse(readFileSync(file, 'utf8'))
    } catch (e) {
      throw new UsageError(`cannot read ${file} as JSON: ${(e as Error).message}`)
    }
    const { imported, refused } = await importServers(openCliDb(values.db), doc, { trusted: values.trusted ?? false, baseDir: path.dirname(path.resolve(file)) }, actor)
    if (imported.length) console.log(`imported ${imported.length} server${imported.length === 1 ? '' : 's'}: ${imported.join(', ')}${values.trusted ? '' : ' (quarantined until reviewed)'}`)
    for (const r of refused) console.error(`toolgate: not imported: ${r.name}: ${r.error}`)
    return refused.length ? 1 : 0
  }
  if (sub === 'set') {
    const { values, positionals } = parse(argv, { 'call-timeout': { type: 'string' }, root: { type: 'string', multiple: true }, 'no-roots': { type: 'boolean' }, trust: { type: 'string' } })
    const name = one(positionals, 'server name')
    if (values.root && values['no-roots']) throw new UsageError('give --root or --no-roots, not both')
    const change = {
      ...(values['call-timeout'] !== undefined ? { callTimeoutMs: parseDuration('--call-timeout', values['call-timeout']) } : {}),
      ...(values.root ? { roots: values.root.map((uri) => ({ uri })) } : values['no-roots'] ? { roots: [] } : {}),
      ...(values.trust !== undefined ? { trust: values.trust } : {}),
    }
    if (Object.keys(change).length === 0) throw new UsageError('nothing to change: give --call-timeout, --root, --no-roots or --trust')
    const r = await configureServer(openCliDb(values.db), name, change, actor)
    console.log(`${name}: call timeout ${r.after.callTimeoutMs / 1000}s, roots ${r.after.roots.map((x) => x.uri).join(', ') || 'none'}, trust ${r.after.trust}  (activity ${r.activityId})`)
    return 0
  }
  if (sub === 'remove' || sub === 'restart') {
    const { values, positionals } = parse(argv, {})
    const name = one(positionals, 'server name')
    if (sub === 'remove') await removeServer(openCliDb(values.db), name, actor)
    else await requestRestart(openCliDb(values.db), name, actor)
    console.log(sub === 'remove' ? `removed ${name}` : `restart requested for ${name}; the runtime reconnects it within a second`)
    return 0
  }
  if (sub === 'set-secret') {
    const { values, positionals } = parse(argv, {})
    if (positionals.length !== 2) throw new UsageError('usage: toolgate upstream set-secret <server> <SECRET_NAME>  (value on stdin)')
    const value = await readStdin()
    await setSecret(openCliDb(values.db), positionals[0], positionals[1], value, actor)
    console.log(`stored ${positionals[1]} for ${positionals[0]} (not shown; the runtime reconnects with it)`)
    return 0
  }
  if (sub === 'login') {
    const { values, positionals } = parse(argv, { url: { type: 'string' } })
    const baseUrl = values.url ?? process.env.TOOLGATE_URL ?? 'http://127.0.0.1:3000'
    const r = await startLogin(openCliDb(values.db), one(positionals, 'server name'), { baseUrl }, actor)
    console.log('url' in r ? `Open this URL to log in (toolgate at ${baseUrl} receives the callback):\n${r.url}` : 'already authorized: the stored token is valid')
    return 0
  }
  if (sub === 'logs') {
    const { values, positionals } = parse(argv, { lines: { type: 'string' } })
    const n = values.lines === undefined ? 50 : Number(values.lines)
    if (!Number.isInteger(n) || n < 1 || n > 1000) throw new UsageError(`--lines must be an integer 1..1000, not "${values.lines}"`)
    const lines = readLogs(openCliDb(values.db), one(positionals, 'server name'), n)
    if (outputFormat(values.output) === 'json') console.log(JSON.stringify(lines, null, 2))
    else console.log(lines.length ? lines.map((l) => `${new Date(l.at).toISOString()} ${l.stream === 'stderr' ? 'stderr' : 'event '} ${l.line}`).join('\n') : '(no log lines yet)')
    return 0
  }
  throw new UsageError(USAGE)
}
