import { readFileSync } from 'node:fs'
import path from 'node:path'
import { parseDuration, intFlag, UsageError } from '@/lib/cli/args'
import { forTerminal, statusColour, table, terminal, toJson } from '@/lib/cli/output'
import { command, EXIT_ERROR, type Command, type FlagSpec } from '@/lib/cli/spec'
import type { OAuthClientConfig } from '@/lib/upstream/oauth'
import { serverUrlOf } from '@/lib/server/address'
import { isolations, samplingSettings, trusts } from '@/lib/core/state'

// Each command loads what it runs on (the admin functions, the runtime's connection code) when
// it runs; help and completion read only this table.

/** How toolgate gets tokens for an HTTP server: `upstream oauth` sets them, `upstream add --url` takes them too. */
const oauthFlags = {
  'client-id': { type: 'string', value: 'ID', default: 'dynamic registration at the first login', description: 'a client the authorization server issued for toolgate' },
  'client-secret': { type: 'string', value: 'S', description: 'that client\'s secret' },
  'client-metadata-url': { type: 'string', value: 'URL', description: 'an HTTPS client ID metadata document, where the server supports them' },
  oauth: { type: 'string', value: 'authorization-code|client-credentials', default: 'authorization-code', description: 'client-credentials: toolgate gets tokens by itself, no login (needs --client-id)', complete: ['authorization-code', 'client-credentials'] },
  'client-key-file': { type: 'string', value: 'PEM', description: 'a private key for private_key_jwt instead of a secret', complete: 'file' },
  'client-key-alg': { type: 'string', value: 'ALG', default: 'RS256', description: 'the key\'s signing algorithm (ES256, RS256, …)' },
} as const satisfies Record<string, FlagSpec>

/** The OAuth client flags, or undefined when none was given. */
function oauthConfig(values: { 'client-id'?: string; 'client-secret'?: string; 'client-metadata-url'?: string; oauth?: string; 'client-key-file'?: string; 'client-key-alg'?: string }): OAuthClientConfig | undefined {
  if (values.oauth !== undefined && values.oauth !== 'client-credentials' && values.oauth !== 'authorization-code') {
    throw new UsageError(`--oauth must be authorization-code or client-credentials, not "${values.oauth}"`)
  }
  if (values['client-id'] === undefined && values['client-secret'] === undefined && values['client-metadata-url'] === undefined && values.oauth === undefined && values['client-key-file'] === undefined) return undefined
  let privateKeyPem: string | undefined
  if (values['client-key-file'] !== undefined) {
    try {
      privateKeyPem = readFileSync(values['client-key-file'], 'utf8')
    } catch (e) {
      throw new UsageError(`cannot read --client-key-file ${values['client-key-file']}: ${(e as Error).message}`)
    }
  }
  return {
    ...(values['client-id'] !== undefined ? { clientId: values['client-id'] } : {}),
    ...(values['client-secret'] !== undefined ? { clientSecret: values['client-secret'] } : {}),
    ...(values['client-metadata-url'] !== undefined ? { clientMetadataUrl: values['client-metadata-url'] } : {}),
    ...(privateKeyPem !== undefined ? { privateKeyPem, ...(values['client-key-alg'] ? { signingAlgorithm: values['client-key-alg'] } : {}) } : {}),
    grant: values.oauth === 'client-credentials' ? 'client_credentials' : 'authorization_code',
  }
}

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


const SERVER = { name: '<name>', what: 'server name', complete: 'server' } as const
const CHANGED = { 0: 'the change was made (on the record)', 1: EXIT_ERROR }
const admin = (s: { enabled: boolean; quarantined: boolean }) => `${s.enabled ? 'enabled' : 'disabled'}${s.quarantined ? ', quarantined' : ''}`

/** enable, disable, quarantine, unquarantine: the server's admin state, printed before → after. */
const adminChange = (verb: 'enable' | 'disable' | 'quarantine' | 'unquarantine', summary: string, examples: Command['examples'], flags: Command['flags'] = {}) => command({
  name: `upstream ${verb}`, summary, args: [SERVER], flags, examples, exits: CHANGED,
  run: async ({ args: [name], values, json, db, ctx }) => {
    const { disableServer, enableServer, quarantineServer, unquarantineServer } = await import('@/lib/admin/servers')
    const adminMutations = { enable: enableServer, disable: disableServer, quarantine: quarantineServer, unquarantine: unquarantineServer }
    const r = verb === 'unquarantine' ? await unquarantineServer(db(), name, ctx, undefined, { confirm: values.yes as boolean | undefined }) : await adminMutations[verb](db(), name, ctx)
    if (json) console.log(toJson({ name: r.name, before: r.before, after: r.after, ...(r.note ? { note: r.note } : {}), activity_id: r.activityId, request_id: r.requestId }))
    else console.log(`${r.name}: ${admin(r.before)} → ${admin(r.after)}  (activity ${r.activityId}, request_id ${r.requestId})${r.note ? `\n  ${r.note}` : ''}`)
    return 0
  },
})

export const upstreamCommands: Command[] = [
  command({
    name: 'upstream list',
    summary: 'every server: admin state, trust, connection, MCP revision, transport ("(state file)" when it has none), missing secrets',
    args: [],
    flags: {},
    examples: [['toolgate upstream list', 'what toolgate manages and how each connection is'], ['toolgate upstream list -o json | jq -r \'.[] | select(.connection != "ready") | .name\'', 'the servers that are not ready']],
    exits: { 0: 'listed', 1: EXIT_ERROR },
    run: async ({ json, db }) => {
      const { revisionText, serverRows } = await import('@/lib/catalog/servers')
      const rows = serverRows(db()).map((r) => ({
        name: r.name, enabled: r.enabled, quarantined: r.quarantined, trust: r.trust, transport: r.transport, missingSecrets: r.missingSecrets,
        connection: r.connection?.state ?? 'unpublished', detail: r.connection?.detail ?? null, health: r.health, tools: r.tools, isolation: r.isolation,
        protocol: r.protocol, protocolVersion: r.protocolVersion, sampling: r.sampling,
      }))
      if (json) console.log(toJson(rows))
      else console.log(table(['NAME', 'ADMIN', 'TRUST', 'CONNECTION', 'PROTOCOL', 'TRANSPORT', 'DETAIL'], rows.map((r) => [
        r.name, admin(r), r.trust, r.connection, revisionText(r) ?? '',
        r.transport ?? '(state file)', [
          // its state comes from a state file, but there is nothing behind it: preflight and calls say so (server_unhealthy)
          r.health === 'no_transport' ? 'nothing to call (no command or URL): its calls are refused' : '',
          r.detail, r.missingSecrets.length ? `missing secrets: ${r.missingSecrets.join(', ')}` : '',
        ].filter(Boolean).join('; '),
      ]), terminal(), (col, cell) => (col === 3 ? statusColour(cell) : undefined)))
      return 0
    },
  }),
  command({
    name: 'upstream add',
    summary: 'add a server: stdio (--command) or Streamable HTTP (--url)',
    details: 'A new server is quarantined unless added with --trusted. Every --env and --header value is stored as a secret, never printed back. OAuth flags go with --url.',
    args: [SERVER],
    flags: {
      command: { type: 'string', value: 'CMD', description: 'a stdio server: the program to start (on PATH, or a path)' },
      arg: { type: 'string', multiple: true, value: 'A', description: 'one argument for --command (repeat for more)' },
      env: { type: 'string', multiple: true, value: 'K=V', description: 'an environment variable for --command, stored as a secret (repeat for more)' },
      cwd: { type: 'string', value: 'DIR', default: 'the repository', description: 'the directory --command starts in', complete: 'file' },
      url: { type: 'string', value: 'URL', description: 'a Streamable HTTP server: its MCP endpoint' },
      sse: { type: 'boolean', description: 'with --url: the older HTTP+SSE transport' },
      header: { type: 'string', multiple: true, value: "'K: V'", description: 'a header for --url, stored as a secret (repeat for more)' },
      secret: { type: 'string', multiple: true, value: 'NAME', description: 'declare a secret to set later with upstream set-secret' },
      trusted: { type: 'boolean', description: 'skip quarantine: its first discovery becomes the approved baseline' },
      trust: { type: 'string', value: trusts.join('|'), default: 'manual', description: 'auto: approve its tool changes automatically', complete: [...trusts] },
      ...oauthFlags,
    },
    examples: [
      ['toolgate upstream add mynotes --command node --arg demo/upstreams/notebook.mjs', 'a stdio server, quarantined until reviewed'],
      ["toolgate upstream add search --url https://mcp.example.com/mcp --header 'Authorization: Bearer …' --trusted", 'an HTTP server with a secret header, trusted'],
      ['toolgate upstream add jira --url https://jira.example.com/mcp --client-id toolgate -o json', 'with a pre-registered OAuth client; JSON for a script'],
    ],
    exits: CHANGED,
    run: async ({ values, args: [name], json, db, ctx }) => {
      if (!values.command === !values.url) throw new UsageError('give exactly one of --command (stdio) or --url (Streamable HTTP)')
      const secrets = values.secret?.length ? { secrets: values.secret } : {}
      if (values.command ? values.sse : values.cwd) throw new UsageError(values.command ? '--sse goes with --url' : '--cwd goes with --command')
      const transport = values.command
        ? { command: values.command, ...(values.arg ? { args: values.arg } : {}), ...(values.env ? { env: pairs(values.env, '=', '--env') } : {}), ...(values.cwd ? { cwd: path.resolve(values.cwd) } : {}), ...secrets }
        : { url: values.url, ...(values.sse ? { type: 'sse' } : {}), ...(values.header ? { headers: pairs(values.header, ':', '--header') } : {}), ...secrets }
      const oauth = oauthConfig(values)
      if (oauth && values.command) throw new UsageError('OAuth settings go with --url (an HTTP server)')
      const { addServer } = await import('@/lib/admin/upstreams')
      const r = await addServer(db(), { name, transport, trusted: values.trusted ?? false, ...(values.trust ? { trust: values.trust } : {}) }, ctx, oauth)
      if (json) {
        const o = r.oauthConfigured
        console.log(toJson({ name, before: null, after: r.after, ...(o ? { oauth: { ...o.oauth, activity_id: o.activityId } } : {}), activity_id: r.activityId, request_id: r.requestId }))
      } else {
        console.log(r.quarantined
          ? `added ${name} (quarantined: review it, then toolgate upstream unquarantine ${name})`
          : `added ${name} (trusted: its first discovery becomes the approved baseline)`)
      }
      return 0
    },
  }),
  command({
    name: 'upstream import',
    summary: 'add the servers of an {"mcpServers": {...}} file (Cursor / Claude Desktop format)',
    details: 'An entry that cannot be imported is named on stderr (in the JSON: refused) while the others are added.',
    args: [{ name: '<file>', what: 'mcpServers JSON file', complete: 'file' }],
    flags: { trusted: { type: 'boolean', description: 'skip quarantine for every imported server' } },
    examples: [['toolgate upstream import ~/.cursor/mcp.json', 'bring over what Cursor uses, quarantined'], ['toolgate upstream import claude_desktop_config.json --trusted -o json', 'trusted; JSON for a script']],
    exits: { 0: 'every entry was imported', 1: 'an entry was refused (the others were imported), or an error' },
    run: async ({ values, args: [file], json, db, ctx }) => {
      let doc: unknown
      try {
        doc = JSON.parse(readFileSync(file, 'utf8'))
      } catch (e) {
        throw new UsageError(`cannot read ${file} as JSON: ${(e as Error).message}`)
      }
      const { importServers } = await import('@/lib/admin/upstreams')
      const { imported, refused, requestId } = await importServers(db(), doc, { trusted: values.trusted ?? false, baseDir: path.dirname(path.resolve(file)) }, ctx)
      if (json) {
        console.log(toJson({ imported: imported.map((s) => ({ name: s.name, after: s.after, activity_id: s.activityId })), refused, request_id: requestId }))
      } else {
        if (imported.length) console.log(`imported ${imported.length} server${imported.length === 1 ? '' : 's'}: ${imported.map((s) => s.name).join(', ')}${values.trusted ? '' : ' (quarantined until reviewed)'}`)
        for (const r of refused) console.error(forTerminal(`toolgate: not imported: ${r.name}: ${r.error}`, { lines: true }))
      }
      return refused.length ? 1 : 0
    },
  }),
  command({
    name: 'upstream set',
    summary: 'a server\'s call timeout, the roots declared to it, its trust, who shares an upstream session, whether its sampling requests reach the caller',
    args: [SERVER],
    flags: {
      'call-timeout': { type: 'string', value: 'DURATION', default: '10m', description: 'how long one call may run; progress restarts it: 30s, 15m' },
      root: { type: 'string', multiple: true, value: 'URI', description: 'a root declared to the server, file:///dir (repeat for more)' },
      'no-roots': { type: 'boolean', description: 'declare no roots' },
      trust: { type: 'string', value: trusts.join('|'), default: 'unchanged', description: 'auto: approve its tool changes automatically', complete: [...trusts] },
      isolation: { type: 'string', value: isolations.join('|'), default: 'unchanged', description: 'per_token: each agent token its own session (on stdio its own process); auto: per_token on HTTP and for servers that keep session state', complete: [...isolations] },
      sampling: { type: 'string', value: samplingSettings.join('|'), default: 'unchanged', description: 'withhold: its sampling requests are refused unasked and sampling is not declared to it (the server reconnects)', complete: [...samplingSettings] },
    },
    examples: [['toolgate upstream set notebook --call-timeout 30m', 'allow long calls'], ['toolgate upstream set notebook --root file:///srv/notes -o json', 'declare one root; before/after as JSON'], ['toolgate upstream set notebook --sampling withhold', 'never put its sampling requests to an agent\'s model']],
    exits: CHANGED,
    run: async ({ values, args: [name], json, db, ctx }) => {
      if (values.root && values['no-roots']) throw new UsageError('give --root or --no-roots, not both')
      const change = {
        ...(values['call-timeout'] !== undefined ? { callTimeoutMs: parseDuration('--call-timeout', values['call-timeout']) } : {}),
        ...(values.root ? { roots: values.root.map((uri) => ({ uri })) } : values['no-roots'] ? { roots: [] } : {}),
        ...(values.trust !== undefined ? { trust: values.trust } : {}),
        ...(values.isolation !== undefined ? { isolation: values.isolation } : {}),
        ...(values.sampling !== undefined ? { sampling: values.sampling } : {}),
      }
      if (Object.keys(change).length === 0) throw new UsageError('nothing to change: give --call-timeout, --root, --no-roots, --trust, --isolation or --sampling')
      const { configureServer } = await import('@/lib/admin/server-settings')
      const r = await configureServer(db(), name, change, ctx)
      if (json) console.log(toJson({ name, before: r.before, after: r.after, activity_id: r.activityId, request_id: r.requestId }))
      else console.log(`${name}: call timeout ${r.after.callTimeoutMs / 1000}s, roots ${r.after.roots.map((x) => x.uri).join(', ') || 'none'}, trust ${r.after.trust}, isolation ${r.after.isolation}, sampling ${r.after.sampling}  (activity ${r.activityId})`)
      return 0
    },
  }),
  command({
    name: 'upstream oauth',
    summary: 'how toolgate gets tokens for an HTTP server: a pre-registered client, a metadata document, dynamic registration, or client credentials',
    details: 'Giving no flag resets to dynamic client registration at the first login. Secrets are stored, never printed back.',
    args: [SERVER],
    flags: oauthFlags,
    examples: [
      ['toolgate upstream oauth jira --client-id toolgate --client-secret "$JIRA_SECRET"', 'a client the authorization server issued'],
      ['toolgate upstream oauth billing --oauth client-credentials --client-id svc --client-key-file key.pem', 'machine to machine, no login'],
    ],
    exits: CHANGED,
    run: async ({ values, args: [name], json, db, ctx }) => {
      const oauth = oauthConfig(values) ?? {}
      const { configureOAuthClient } = await import('@/lib/upstream/oauth')
      const r = await configureOAuthClient(db(), name, oauth, ctx)
      if (json) console.log(toJson({ name, oauth: r.oauth, activity_id: r.activityId, request_id: r.requestId }))
      else console.log(`${name}: ${oauth.grant === 'client_credentials' ? 'client credentials (toolgate gets tokens by itself)' : 'logins by authorization code'}, ${oauth.clientId ? `pre-registered client ${oauth.clientId}` : oauth.clientMetadataUrl ? `client ID metadata document ${oauth.clientMetadataUrl}` : 'dynamic client registration at the first login'}`)
      return 0
    },
  }),
  command({
    name: 'upstream remove',
    summary: 'remove a server (its tools and approvals go with it)',
    args: [SERVER],
    flags: {},
    examples: [['toolgate upstream remove legacy-ci', 'remove one server'], ['toolgate upstream remove legacy-ci -o json', 'what it was, on the record']],
    exits: CHANGED,
    run: async ({ args: [name], json, db, ctx }) => {
      const { removeServer } = await import('@/lib/admin/upstreams')
      const r = await removeServer(db(), name, ctx)
      if (json) console.log(toJson({ name, before: r.before, after: null, activity_id: r.activityId, request_id: r.requestId }))
      else console.log(`removed ${name}  (activity ${r.activityId}, request_id ${r.requestId})`)
      return 0
    },
  }),
  adminChange('enable', 'enable a disabled server', [['toolgate upstream enable legacy-ci', 'serve its tools again'], ['toolgate upstream enable legacy-ci -o json', 'before/after as JSON']]),
  adminChange('disable', 'disable a server: its tools are withheld and it is disconnected', [['toolgate upstream disable slack', 'take it out of service'], ['toolgate upstream disable slack -o json', 'before/after as JSON']]),
  adminChange('quarantine', 'withhold all the server\'s tools until it is reviewed', [['toolgate upstream quarantine github', 'stop serving it pending a review'], ['toolgate upstream quarantine github -o json', 'before/after as JSON']]),
  adminChange('unquarantine', 'release a quarantined server, approving its definitions as listed now (what tools list --server shows)',
    [['toolgate tools list --server github && toolgate upstream unquarantine github', 'review, then release'], ['toolgate upstream unquarantine github -o json', 'before/after and what was approved']],
    { yes: { type: 'boolean', short: 'y', description: 'release even though its tools read like served ones beyond max_description_overlap (the refusal names the pairs)' } }),
  command({
    name: 'upstream inspect',
    summary: 'start a quarantined server here and list its tools for review; nothing is served or called',
    details: 'Starting a stdio server runs its code on this machine. Review each tool with toolgate tools show <id>; unquarantine approves exactly what was listed.',
    args: [SERVER],
    flags: {},
    examples: [['toolgate upstream inspect github', 'list what it would serve'], ['toolgate upstream inspect github -o json', 'the listed tools as JSON']],
    exits: { 0: 'listed for review', 1: EXIT_ERROR },
    run: async ({ args: [name], json, db }) => {
      const [{ managedServers, serverState }, { runtimeHolder }, { inspectServer }, { toolInventory }, { listActivity }] = await Promise.all([
        import('@/db/queries/servers'), import('@/db/queries/connections'), import('@/lib/upstream/connection'), import('@/lib/catalog/inventory'), import('@/db/queries/activity'),
      ])
      const state = serverState(db(), name)
      if (!state) throw new UsageError(`no server "${name}" is configured`, 'toolgate upstream list shows the servers')
      if (!state.quarantined) throw new UsageError(`server "${name}" is not quarantined: its tools are listed already (toolgate tools list --server ${name})`)
      if (!state.transport) throw new UsageError(`server "${name}" has no transport: its tools come from a state file (toolgate tools list --server ${name})`)
      const secrets = Object.fromEntries(managedServers(db()).filter((s) => s.name === name).flatMap((s) => Object.entries(s.secrets)))
      const log = (stream: 'stderr' | 'event', line: string) => { if (stream === 'stderr') process.stderr.write(`${name}: ${forTerminal(line)}\n`) }
      const n = await inspectServer(db(), { name, transport: state.transport, secrets, sampling: state.sampling }, { baseUrl: serverUrlOf(runtimeHolder(db()), undefined).url, connectTimeoutMs: 30_000 }, log)
      const rows = toolInventory(db(), name)
      if (json) {
        // discovery writes the inspection's record under a request id of its own
        const [r] = listActivity(db(), { type: 'server.inspected', server: name, limit: 1 })
        console.log(toJson({ name, listed: n, tools: rows, activity_id: r?.id ?? null, request_id: r?.requestId ?? null }))
      } else console.log([`inspected ${name}: ${n} tools listed for review; the server stays quarantined (nothing is served or called).`,
        table(['ID', 'PIN', 'DESCRIPTION'], rows.map((r) => [r.id, r.pin ?? '-', (r.description ?? '').slice(0, 80)])),
        `Review one with toolgate tools show <id>; release with toolgate upstream unquarantine ${name} (approves exactly these definitions).`].join('\n'))
      return 0
    },
  }),
  command({
    name: 'upstream restart',
    summary: 'ask the runtime to reconnect the server (within about a second)',
    args: [SERVER],
    flags: {},
    examples: [['toolgate upstream restart slack', 'reconnect after fixing its secret'], ['toolgate upstream restart slack -o json', 'the request, on the record']],
    exits: CHANGED,
    run: async ({ args: [name], json, db, ctx }) => {
      const { requestRestart } = await import('@/lib/admin/upstreams')
      const r = await requestRestart(db(), name, ctx)
      if (json) console.log(toJson({ name, activity_id: r.activityId, request_id: r.requestId }))
      else console.log(`restart requested for ${name}; the runtime reconnects it within a second  (activity ${r.activityId}, request_id ${r.requestId})`)
      return 0
    },
  }),
  command({
    name: 'upstream set-secret',
    summary: 'store a secret env var or header; the value is read from stdin and never printed back',
    args: [SERVER, { name: '<SECRET_NAME>', what: 'secret name' }],
    flags: {},
    examples: [['printf %s "$GITHUB_TOKEN" | toolgate upstream set-secret github GITHUB_TOKEN', 'store a token from the environment'], ['toolgate upstream set-secret jira API_KEY < key.txt', 'from a file']],
    exits: CHANGED,
    run: async ({ args: [name, secret], json, db, ctx }) => {
      const { setSecret } = await import('@/lib/admin/upstreams')
      const r = await setSecret(db(), name, secret, await readStdin(), ctx)
      if (json) console.log(toJson({ name, secret, activity_id: r.activityId, request_id: r.requestId }))
      else console.log(`stored ${secret} for ${name} (not shown; the runtime reconnects with it)  (activity ${r.activityId}, request_id ${r.requestId})`)
      return 0
    },
  }),
  command({
    name: 'upstream login',
    summary: 'print the OAuth login URL for an HTTP server',
    args: [SERVER],
    flags: { url: { type: 'string', value: 'URL', default: '$TOOLGATE_URL, else the URL of the toolgate running on this database, else http://127.0.0.1:$PORT (3000)', description: 'toolgate\'s base URL: the login\'s callback comes back there' } },
    examples: [['toolgate upstream login jira', 'open the printed URL in a browser'], ['toolgate upstream login jira --url https://toolgate.lan -o json', 'the URL as JSON, for a toolgate behind a name']],
    exits: { 0: 'a login URL was printed, or the stored token is valid', 1: EXIT_ERROR },
    run: async ({ values, args: [name], json, db, ctx }) => {
      const [{ runtimeHolder }, { startLogin }] = await Promise.all([import('@/db/queries/connections'), import('@/lib/upstream/oauth')])
      const { url: baseUrl, from } = serverUrlOf(runtimeHolder(db()), values.url)
      if (from === 'default') console.error(`toolgate: note: no toolgate running on this database recorded its URL; the callback goes to ${baseUrl} (--url or $TOOLGATE_URL to say where toolgate answers)`)
      const r = await startLogin(db(), name, { baseUrl }, ctx)
      if (json) console.log(toJson({ name, ...('url' in r ? { url: r.url } : { already_authorized: true }), activity_id: r.activityId, request_id: r.requestId }))
      else console.log('url' in r ? `Open this URL to log in (toolgate at ${baseUrl} receives the callback):\n${r.url}` : 'already authorized: the stored token is valid')
      return 0
    },
  }),
  command({
    name: 'upstream logs',
    summary: 'the last lines of the server\'s stderr and its connection events',
    args: [SERVER],
    flags: { lines: { type: 'string', value: 'N', default: '50', description: 'how many lines (at most 1000)' } },
    examples: [['toolgate upstream logs slack', 'why it is unhealthy'], ['toolgate upstream logs slack --lines 200 -o json', 'more, as JSON']],
    exits: { 0: 'printed', 1: EXIT_ERROR },
    run: async ({ values, args: [name], json, db }) => {
      const [{ readLogs }, { serverState }] = await Promise.all([import('@/db/queries/upstream'), import('@/db/queries/servers')])
      const lines = readLogs(db(), name, intFlag('--lines', values.lines, 50, 1, 1000))
      const state = serverState(db(), name)
      if (!state) throw new UsageError(`no server "${name}" is configured`, 'toolgate upstream list shows the servers')
      if (json) console.log(toJson(lines))
      // a state-file server runs nowhere, so it never logs: say that instead of "not yet"
      else if (!lines.length && !state.transport) console.log(`(no log lines: ${name} has no command or URL, so toolgate never runs it; it is a state-file example, its state comes from the state file)`)
      else console.log(lines.length ? lines.map((l) => `${new Date(l.at).toISOString()} ${l.stream === 'stderr' ? 'stderr' : 'event '} ${forTerminal(l.line)}`).join('\n') : '(no log lines yet)')
      return 0
    },
  }),
]
