import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { openCliDb, parse, UsageError } from '../args'
import { ensureOperatorKey, rotateOperatorKey } from '../../auth/operator-key'
import { loadDemoIfEmpty } from '../../state/demo'
import { projectRoot } from '../../paths'

const nextBin = () => path.join(projectRoot(), 'node_modules', 'next', 'dist', 'bin', 'next')

/**
 * `toolgate serve` (what `npm start` runs): prepare the database (migrations, demo state on
 * first start, operator key), build the app if there is no build yet, then run `next start`.
 */
export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, { port: { type: 'string', short: 'p' }, host: { type: 'string' }, rebuild: { type: 'boolean' } })
  const port = values.port ?? process.env.PORT ?? '3000'
  const host = values.host ?? process.env.HOST ?? '127.0.0.1'
  if (!/^\d+$/.test(port)) throw new UsageError(`--port must be a number, not "${port}"`)

  const dbFile = values.db ? path.resolve(values.db) : undefined
  if (dbFile) process.env.TOOLGATE_DB = dbFile // the server process opens the same file
  const db = openCliDb(dbFile)
  const demo = loadDemoIfEmpty(db)
  const newKey = ensureOperatorKey(db)
  db.$client.close()

  if (values.rebuild || !existsSync(path.join(projectRoot(), process.env.NEXT_DIST_DIR || '.next', 'BUILD_ID'))) {
    console.log('toolgate: building the web app (first start only; about a minute)…')
    const build = spawnSync(process.execPath, [nextBin(), 'build'], { cwd: projectRoot(), stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } })
    if (build.status !== 0) throw new Error('next build failed')
  }

  const url = `http://${host}:${port}`
  console.log([
    '',
    `toolgate is starting on ${url}`,
    demo ? '  first start: the demo state was loaded (servers showing every reason code)' : '',
    newKey
      ? `  operator API key (shown once, stored only as a hash): ${newKey}`
      : process.env.TOOLGATE_API_KEY ? '  operator API key: the value of TOOLGATE_API_KEY' : '  operator API key: set on first start (new one: toolgate operator-key rotate)',
    `  try: curl -s -X POST ${url}/api/v1/preflight -H "X-API-Key: <key>" -H 'content-type: application/json' -d '{"tools":[{"id":"notes:read_note"}]}'`,
    '',
  ].filter(Boolean).join('\n'))

  const child = spawn(process.execPath, [nextBin(), 'start', '-H', host, '-p', port], {
    cwd: projectRoot(), stdio: 'inherit',
    // the runtime builds OAuth callback URLs from TOOLGATE_URL
    env: { ...process.env, PORT: port, TOOLGATE_URL: process.env.TOOLGATE_URL ?? url, NEXT_TELEMETRY_DISABLED: '1' },
  })
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => child.kill(sig))
  return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 0)))
}

export function operatorKeyCommand(sub: string | undefined, argv: string[]): number {
  if (sub !== 'rotate') throw new UsageError('usage: toolgate operator-key rotate')
  const { values } = parse(argv, {})
  if (process.env.TOOLGATE_API_KEY) throw new UsageError('TOOLGATE_API_KEY is set: the operator key is that value; change it there')
  console.log(rotateOperatorKey(openCliDb(values.db)))
  return 0
}
