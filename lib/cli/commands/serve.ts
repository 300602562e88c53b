import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { openCliDb, UsageError } from '@/lib/cli/args'
import { command, EXIT_ERROR, type Command } from '@/lib/cli/spec'
import { rotateOperatorKey } from '@/lib/auth/operator-key'
import { getDb } from '@/db/client'
import { startDemoServices, type DemoServices } from '@/lib/demo/services'
import { runtimeHolder } from '@/db/queries/connections'
import { runtimeTakenMessage } from '@/lib/upstream/supervisor'
import { DEMO_AGENT_TOKEN, loadDemoIfEmpty } from '@/lib/state/demo'
import { projectRoot } from '@/lib/paths'
import { buildIdFile } from '@/lib/server/build'
import { startToolgate, type RunningToolgate } from '@/lib/server/start'

const nextBin = () => path.join(projectRoot(), 'node_modules', 'next', 'dist', 'bin', 'next')

/** Where serve listens: flags, else $PORT and $HOST, else 127.0.0.1:3000. doctor checks the same address. */
export function listenAddress(values: { port?: string; host?: string }): { port: number; host: string } {
  const port = values.port ?? process.env.PORT ?? '3000'
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) throw new UsageError(`--port must be a port number (0-65535), not "${port}"`)
  return { port: Number(port), host: values.host ?? process.env.HOST ?? '127.0.0.1' }
}

export const addressFlags = {
  port: { type: 'string', short: 'p', value: 'N', default: '$PORT, else 3000', description: 'the port to listen on' },
  host: { type: 'string', value: 'HOST', default: '$HOST, else 127.0.0.1', description: 'the address to listen on (0.0.0.0: reachable from other machines)' },
} as const

/**
 * `toolgate serve` (what `npm start` runs): prepare the database (migrations, demo state on
 * first start), build the web app if there is no build yet, then run toolgate in this process.
 * Its output is a log, not a result, so it takes no -o.
 */
const serveCommand = command({
  name: 'serve',
  summary: 'start the server: dashboard, /api/v1 and /mcp on one port (what npm start runs)',
  details: 'Migrates the database, loads the demo state when it has no servers (unless --no-demo), builds the web app when there is no build yet (or with --rebuild), prints the operator API key once when it generates one. Without --no-demo, and with the runtime on, it also starts the demo\'s jira (behind a local OAuth authorization server) and slack on free loopback ports when the database holds them, and points them there (a server.transport_changed record each). Ctrl-C or SIGTERM stops it, with the demo\'s services.',
  args: [],
  flags: {
    ...addressFlags,
    rebuild: { type: 'boolean', description: 'build the web app even if a build exists' },
    'no-demo': { type: 'boolean', description: 'do not load the demo state into an empty database' },
    dev: { type: 'boolean', description: 'run the Next.js development server instead of the build (npm run dev)' },
  },
  output: false,
  examples: [['toolgate serve', 'start on 127.0.0.1:3000'], ['toolgate serve --port 8080 --host 0.0.0.0', 'reachable from other machines on 8080'], ['toolgate serve --db /srv/toolgate.db --no-demo', 'a production database, no demo']],
  exits: { 0: 'stopped by SIGINT or SIGTERM', 1: `could not start (the port is in use, the build failed …), or ${EXIT_ERROR}` },
  run: async ({ values }) => {
    const { port, host } = listenAddress(values)
    if (values.db) process.env.TOOLGATE_DB = path.resolve(values.db) // the server opens the same file
    const runtime = process.env.TOOLGATE_RUNTIME !== 'off'
    const setup = openCliDb(undefined)
    // a second toolgate on this database is refused before it changes anything: no demo, no build
    const holder = runtime ? runtimeHolder(setup) : null
    if (holder) {
      setup.$client.close()
      throw new Error(`${runtimeTakenMessage(holder)}. Nothing was changed.`)
    }
    const demo = values['no-demo'] ? false : await loadDemoIfEmpty(setup)
    setup.$client.close()

    if (!values.dev && (values.rebuild || !existsSync(buildIdFile()))) {
      console.log('toolgate: building the web app (first start only; about 30 s)…')
      const build = spawnSync(process.execPath, [nextBin(), 'build'], { cwd: projectRoot(), stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', TOOLGATE_SKIP_TYPECHECK: '1' } })
      if (build.status !== 0) throw new Error('next build failed')
    }

    ;(process.env as Record<string, string>).NODE_ENV ??= values.dev ? 'development' : 'production'
    // the demo's services re-point its servers: only under this process's runtime lease, before
    // the runtime reads the transports (and after the build, a synchronous child that would stall them)
    let services = null as DemoServices | null
    const beforeRuntime = !values['no-demo'] && runtime ? async () => void (services = await startDemoServices(getDb())) : undefined
    let running: RunningToolgate
    try {
      running = await startToolgate({ host, port, runtime, dev: values.dev, beforeRuntime })
    } catch (e) {
      await services?.close()
      throw e
    }
    console.log([
      '',
      `toolgate is running at ${running.url}  (dashboard: ${running.url}/ · MCP: ${running.url}/mcp)`,
      demo ? `  first start: the demo state was loaded; its agent token is ${DEMO_AGENT_TOKEN}` : '',
      services ? `  demo upstreams on loopback for this run: ${Object.entries(services.urls).map(([name, url]) => `${name} ${url}`).join(', ')}${services.authorizationServer ? ` (jira's authorization server: ${services.authorizationServer})` : ''}` : '',
      process.env.TOOLGATE_API_KEY ? '  operator API key: the value of TOOLGATE_API_KEY' : '  operator API key: printed once at first start (new one: toolgate operator-key rotate)',
      `  try: curl -s -X POST ${running.url}/api/v1/preflight -H "X-API-Key: $TOOLGATE_API_KEY" -H 'content-type: application/json' -d '{"tools":[{"id":"notes:read_note"}]}'`,
      '',
    ].filter(Boolean).join('\n'))

    return new Promise((resolve) => {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) {
        process.once(sig, () => {
          console.log(`toolgate: ${sig}: stopping`)
          // the runtime lets go of the demo's upstreams before they stop
          void running.close().then(() => services?.close()).then(() => resolve(0))
        })
      }
    })
  },
})

const rotateCommand = command({
  name: 'operator-key rotate',
  summary: 'print a new operator API key (shown once; only its hash is stored) and sign every dashboard session out',
  details: 'Refused while TOOLGATE_API_KEY is set: then the key is that variable\'s value. The rotation is not an activity record (the log has no type for it); sign-ins with the new key are.',
  args: [],
  flags: {},
  examples: [['toolgate operator-key rotate', 'a new key; copy it now'], ['export TOOLGATE_API_KEY=$(toolgate operator-key rotate -o json | jq -r .operator_key)', 'straight into the shell']],
  exits: { 0: 'rotated', 1: `TOOLGATE_API_KEY is set, or ${EXIT_ERROR}` },
  run: async ({ json, db, ctx }) => {
    if (process.env.TOOLGATE_API_KEY) throw new UsageError('TOOLGATE_API_KEY is set: the operator key is that value; change it there', 'unset TOOLGATE_API_KEY to let toolgate keep the key')
    const r = await rotateOperatorKey(db(), ctx)
    console.log(json ? JSON.stringify({ operator_key: r.key, sessions_signed_out: r.signedOut, activity_id: r.activityId, request_id: r.requestId }, null, 2) : r.key)
    return 0
  },
})

export const serveCommands: Command[] = [serveCommand, rotateCommand]
