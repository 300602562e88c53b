import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { openCliDb, parse, UsageError } from '@/lib/cli/args'
import { rotateOperatorKey } from '@/lib/auth/operator-key'
import { loadDemoIfEmpty } from '@/lib/state/demo'
import { projectRoot } from '@/lib/paths'
import { startToolgate } from '@/lib/server/start'
import { DEMO_AGENT_TOKEN } from '@/lib/state/demo'

const nextBin = () => path.join(projectRoot(), 'node_modules', 'next', 'dist', 'bin', 'next')

/**
 * `toolgate serve` (what `npm start` runs): prepare the database (migrations, demo state on
 * first start), build the web app if there is no build yet, then run toolgate in this process.
 */
export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    port: { type: 'string', short: 'p' }, host: { type: 'string' }, rebuild: { type: 'boolean' },
    'no-demo': { type: 'boolean' }, dev: { type: 'boolean' },
  })
  const port = values.port ?? process.env.PORT ?? '3000'
  const host = values.host ?? process.env.HOST ?? '127.0.0.1'
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) throw new UsageError(`--port must be a port number (0-65535), not "${port}"`)

  if (values.db) process.env.TOOLGATE_DB = path.resolve(values.db) // the server opens the same file
  const setup = openCliDb(undefined)
  const demo = values['no-demo'] ? false : await loadDemoIfEmpty(setup)
  setup.$client.close()

  if (!values.dev && (values.rebuild || !existsSync(path.join(projectRoot(), process.env.NEXT_DIST_DIR || '.next', 'BUILD_ID')))) {
    console.log('toolgate: building the web app (first start only; about 30 s)…')
    const build = spawnSync(process.execPath, [nextBin(), 'build'], { cwd: projectRoot(), stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', TOOLGATE_SKIP_TYPECHECK: '1' } })
    if (build.status !== 0) throw new Error('next build failed')
  }

  ;(process.env as Record<string, string>).NODE_ENV ??= values.dev ? 'development' : 'production'
  const running = await startToolgate({ host, port: Number(port), runtime: process.env.TOOLGATE_RUNTIME !== 'off', dev: values.dev })
  console.log([
    '',
    `toolgate is running at ${running.url}  (dashboard: ${running.url}/ · MCP: ${running.url}/mcp)`,
    demo ? `  first start: the demo state was loaded; its agent token is ${DEMO_AGENT_TOKEN}` : '',
    process.env.TOOLGATE_API_KEY ? '  operator API key: the value of TOOLGATE_API_KEY' : '  operator API key: printed once at first start (new one: toolgate operator-key rotate)',
    `  try: curl -s -X POST ${running.url}/api/v1/preflight -H "X-API-Key: $TOOLGATE_API_KEY" -H 'content-type: application/json' -d '{"tools":[{"id":"notes:read_note"}]}'`,
    '',
  ].filter(Boolean).join('\n'))

  return new Promise((resolve) => {
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      process.once(sig, () => {
        console.log(`toolgate: ${sig}: stopping`)
        void running.close().then(() => resolve(0))
      })
    }
  })
}

export async function operatorKeyCommand(sub: string | undefined, argv: string[]): Promise<number> {
  if (sub !== 'rotate') throw new UsageError('usage: toolgate operator-key rotate')
  const { values } = parse(argv, {})
  if (process.env.TOOLGATE_API_KEY) throw new UsageError('TOOLGATE_API_KEY is set: the operator key is that value; change it there')
  console.log(await rotateOperatorKey(openCliDb(values.db)))
  return 0
}
