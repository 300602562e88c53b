import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { networkInterfaces } from 'node:os'
import path from 'node:path'
import { UsageError } from '@/lib/cli/args'
import { toJson } from '@/lib/cli/output'
import { command, EXIT_ERROR, type Command } from '@/lib/cli/spec'
import type { DemoServices } from '@/lib/demo/services'
import { projectRoot } from '@/lib/core/paths'
import { isLoopbackHost, urlHost } from '@/lib/server/address'
import { buildIdFile } from '@/lib/server/build'
import type { RunningToolgate } from '@/lib/server/start'
import { envVar, environment, setEnvVar } from '@/lib/core/config'

const nextBin = () => path.join(projectRoot(), 'node_modules', 'next', 'dist', 'bin', 'next')

/** Where serve listens: flags, else $PORT and $HOST, else 127.0.0.1:3000. doctor checks the same address. */
export function listenAddress(values: { port?: string; host?: string }): { port: number; host: string } {
  const port = values.port ?? envVar('PORT') ?? '3000'
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) throw new UsageError(`--port must be a port number (0-65535), not "${port}"`)
  return { port: Number(port), host: values.host ?? envVar('HOST') ?? '127.0.0.1' }
}

export const addressFlags = {
  port: { type: 'string', short: 'p', value: 'N', default: '$PORT, else 3000', description: 'the port to listen on' },
  host: { type: 'string', value: 'HOST', default: '$HOST, else 127.0.0.1', description: 'the address to listen on (0.0.0.0: reachable from other machines)' },
} as const

/** The first start's build, quiet: one line now, one when it is done, its whole output only if it fails. */
function buildWebApp(): void {
  console.log('toolgate: building the web app (first start only; about a minute)…')
  const started = Date.now()
  const build = spawnSync(process.execPath, [nextBin(), 'build'], {
    cwd: projectRoot(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024,
    env: { ...environment(), NEXT_TELEMETRY_DISABLED: '1', TOOLGATE_SKIP_TYPECHECK: '1' },
  })
  if (build.status !== 0) {
    process.stderr.write(`${build.stdout ?? ''}${build.stderr ?? ''}`)
    throw new Error(`next build failed (its output is above)${build.error ? `: ${build.error.message}` : ''}`)
  }
  console.log(`toolgate: web app built in ${Math.round((Date.now() - started) / 1000)} s`)
}

/** Bound beyond loopback: say so, where it is reachable, and what became of the demo's tokens. */
function exposure(host: string, port: number, revoked: string[]): string[] {
  return [
    `  WARNING: listening on ${host}, not loopback: anyone who can reach this machine can reach toolgate:`,
    ...reachableUrls(host, port).map((u) => `    ${u}`),
    '  Only the operator key and agent tokens get in; keep them secret, and put TLS in front for anything but a trusted network (docs/security.md).',
    ...(revoked.length ? [`  The demo's well-known agent tokens were revoked (${revoked.join(', ')}): the README prints them. Make one of your own: dashboard → Tokens & profiles → Create token.`] : []),
  ]
}

/** The URLs other machines reach a listen address at: every external address for a wildcard bind. */
function reachableUrls(host: string, port: number): string[] {
  const wildcard = host === '0.0.0.0' || host === '::' || host === ''
  if (!wildcard) return [`http://${urlHost(host)}:${port}`]
  const addresses = Object.values(networkInterfaces()).flat().filter((a) => a && !a.internal && (host === '::' || a.family === 'IPv4'))
  const urls = addresses.map((a) => `http://${a!.family === 'IPv6' ? `[${a!.address}]` : a!.address}:${port}`)
  return urls.length ? urls : [`http://<this machine's address>:${port} (no external network interface found right now)`]
}

/** Lines in a box, so the one thing to copy stands out from the log around it. */
function framed(lines: string[]): string[] {
  const width = Math.max(...lines.map((l) => l.length))
  return [`┌${'─'.repeat(width + 2)}┐`, ...lines.map((l) => `│ ${l.padEnd(width)} │`), `└${'─'.repeat(width + 2)}┘`]
}

/**
 * `toolgate serve` (what `npm start` runs): prepare the database (migrations, demo state on
 * first start), build the web app if there is no build yet, then run toolgate in this process.
 * Its output is a log, not a result, so it takes no -o.
 */
const serveCommand = command({
  name: 'serve',
  summary: 'start the server: dashboard, /api/v1 and /mcp on one port (what npm start runs)',
  details: 'Migrates the database, loads the demo state when it has no servers (unless --no-demo), builds the web app when there is no build yet (or with --rebuild), prints the operator API key once when it generates one. Without --no-demo, and with the runtime on, it also starts the demo\'s jira (behind a local OAuth authorization server) and slack on free loopback ports when the database holds them, and points them there (a server.transport_changed record each). A second serve on a database whose toolgate is running is refused before it changes anything. Bound beyond loopback it warns, lists where it is reachable, and revokes the demo\'s well-known agent tokens. Ctrl-C or SIGTERM stops it, with the demo\'s services.',
  args: [],
  flags: {
    ...addressFlags,
    rebuild: { type: 'boolean', description: 'build the web app even if a build exists' },
    'no-demo': { type: 'boolean', description: 'do not load the demo state into an empty database' },
    dev: { type: 'boolean', description: 'run the Next.js development server instead of the build (npm run dev)' },
  },
  output: false,
  createsDb: true,
  examples: [['toolgate serve', 'start on 127.0.0.1:3000'], ['toolgate serve --port 8080 --host 0.0.0.0', 'reachable from other machines on 8080'], ['toolgate serve --db /srv/toolgate.db --no-demo', 'a production database, no demo']],
  exits: { 0: 'stopped by SIGINT or SIGTERM', 1: `could not start (the port is in use, the build failed …), or ${EXIT_ERROR}` },
  run: async ({ values, db }) => {
    const { port, host } = listenAddress(values)
    // the whole server, loaded by the one command that runs it
    const [{ closeStore, getDb }, { runtimeHolder }, { runtimeTakenMessage }, { DEMO_AGENT_TOKEN, loadDemoIfEmpty }, { revokeWellKnownTokens }, { startDemoServices }, { startToolgate }] = await Promise.all([
      import('@/db/client'), import('@/db/queries/connections'), import('@/lib/upstream/supervisor'), import('@/lib/state/demo'),
      import('@/lib/demo/tokens'), import('@/lib/demo/services'), import('@/lib/server/start'),
    ])
    if (values.db) setEnvVar('TOOLGATE_DB', path.resolve(values.db)) // the server opens the same file
    const runtime = envVar('TOOLGATE_RUNTIME') !== 'off'
    const setup = db()
    // a second toolgate on this database is refused before it changes anything: no demo, no build
    const holder = runtime ? runtimeHolder(setup) : null
    if (holder) {
      closeStore(setup)
      throw new Error(`${runtimeTakenMessage(holder)}. Nothing was changed.`)
    }
    const demo = values['no-demo'] ? false : await loadDemoIfEmpty(setup)
    // beyond loopback, the demo's tokens (printed in the README) would let anyone in
    const exposed = !isLoopbackHost(host)
    const revoked = exposed ? await revokeWellKnownTokens(setup) : []
    closeStore(setup)

    if (!values.dev && (values.rebuild || !existsSync(buildIdFile()))) buildWebApp()

    if (!envVar('NODE_ENV')) setEnvVar('NODE_ENV', values.dev ? 'development' : 'production')
    // the demo's services re-point its servers: only under this process's runtime lease, before
    // the runtime reads the transports (and after the build, a synchronous child that would stall them)
    const started: { services?: DemoServices | null } = {}
    const beforeRuntime = !values['no-demo'] && runtime ? async () => void (started.services = await startDemoServices(getDb())) : undefined
    let running: RunningToolgate
    try {
      running = await startToolgate({ host, port, runtime, dev: values.dev, beforeRuntime })
    } catch (e) {
      await started.services?.close()
      throw e
    }
    const demoServices = started.services
    const listening = (running.server.address() as AddressInfo).port
    console.log([
      '',
      `toolgate is running at ${running.url}${exposed ? ' (from this machine)' : ''}  (dashboard: ${running.url}/ · MCP: ${running.url}/mcp)`,
      ...(exposed ? exposure(host, listening, revoked) : []),
      demo && !revoked.length ? `  first start: the demo state was loaded; its agent token is ${DEMO_AGENT_TOKEN}` : demo ? '  first start: the demo state was loaded' : '',
      demoServices ? `  demo upstreams on loopback for this run: ${Object.entries(demoServices.urls).map(([name, url]) => `${name} ${url}`).join(', ')}${demoServices.authorizationServer ? ` (jira's authorization server: ${demoServices.authorizationServer})` : ''}` : '',
      `  try: curl -s -X POST ${running.url}/api/v1/preflight -H "X-API-Key: $TOOLGATE_API_KEY" -H 'content-type: application/json' -d '{"tools":[{"id":"notebook:list_notes"}]}'`,
      envVar('TOOLGATE_API_KEY') ? '  operator API key: the value of TOOLGATE_API_KEY' : running.newKey ? '' : '  operator API key: printed once at first start (new one: toolgate operator-key rotate)',
    ].filter((l, i) => i === 0 || l !== '').join('\n'))
    // the one thing to copy comes last, apart from the log above it
    if (running.newKey) {
      console.log(['', ...framed(['operator API key (shown this once; toolgate keeps only its hash):', '', `  ${running.newKey}`, '', 'Copy it now: it is the break-glass key — it signs in as the bootstrap admin (to create the first accounts), REST takes it as X-API-Key, and every use is recorded as break-glass.', 'Lost it? toolgate operator-key rotate prints a new one.']), ''].join('\n'))
    }

    return new Promise((resolve) => {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) {
        process.once(sig, () => {
          console.log(`toolgate: ${sig}: stopping`)
          // the runtime lets go of the demo's upstreams before they stop
          void running.close().then(() => demoServices?.close()).then(() => resolve(0))
        })
      }
    })
  },
})

const rotateCommand = command({
  name: 'operator-key rotate',
  summary: 'print a new operator API key — the break-glass key (shown once; only its hash is stored) — and sign out the sessions the old one opened',
  details: 'Refused when the stored key is TOOLGATE_API_KEY\'s own (a serve started with the variable stored it, and puts it back on its next start): change the variable where toolgate is started instead. A TOOLGATE_API_KEY that only holds a copy of the key toolgate made (or another value) does not stop it; the shell\'s copy is stale afterwards, and it says so. The rotation is an activity record (operator_key.rotated, the key itself never), and so are sign-ins with the new key.',
  args: [],
  flags: {},
  examples: [['toolgate operator-key rotate', 'a new key; copy it now'], ['export TOOLGATE_API_KEY=$(toolgate operator-key rotate -o json | jq -r .operator_key)', 'straight into the shell']],
  exits: { 0: 'rotated', 1: `the stored key is TOOLGATE_API_KEY's own, or ${EXIT_ERROR}` },
  run: async ({ json, db, ctx }) => {
    const { envKeyState, rotateOperatorKey } = await import('@/lib/admin/operator-key')
    const fromEnv = envVar('TOOLGATE_API_KEY')
    const state = fromEnv ? envKeyState(db(), fromEnv) : undefined
    if (state === 'source') throw new UsageError('the operator key is TOOLGATE_API_KEY\'s value: a toolgate serve started with it stored it, and would put it back on its next start, undoing a rotation', 'change TOOLGATE_API_KEY where toolgate is started and restart it (the start replaces the key, on the record); or unset it there and rotate here')
    const r = await rotateOperatorKey(db(), ctx)
    console.log(json ? toJson({ operator_key: r.key, sessions_signed_out: r.signedOut, activity_id: r.activityId, request_id: r.requestId }) : r.key)
    if (state === 'copy') console.error('toolgate: note: TOOLGATE_API_KEY in this shell still holds the old key: export the new one (export TOOLGATE_API_KEY=<the key above>)')
    return 0
  },
})

export const serveCommands: Command[] = [serveCommand, rotateCommand]
