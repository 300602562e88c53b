import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDb, type Db } from '@/db/client'
import { serverConnections } from '@/db/schema'
import { runCli } from '@/tests/helpers/cli'
import { tempDbFile } from '@/tests/helpers/db'
import { freePort, startServer, type RunningServer } from '@/tests/helpers/server'
import { waitFor } from '@/tests/upstream/harness'

// `npm start` twice on one database: the second is refused, and the first keeps its demo
// services where they are: jira stays logged in, slack's workspace stays the one it talks to.
const KEY = 'tg_op_second_start_key_0000000'
let server: RunningServer
let db: Db
let file: string
beforeAll(async () => {
  file = tempDbFile()
  server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: KEY, TOOLGATE_RUNTIME: 'on' }, { demo: true })
  db = openDb(file)
  db.$client.pragma('busy_timeout = 5000')
})
afterAll(async () => {
  await server?.stop()
})

const connection = (name: string) => db.select().from(serverConnections).where(eq(serverConnections.serverName, name)).get()
const transports = () => db.$client.prepare(`select name, transport from servers where name in ('jira', 'slack') order by name`).all()
const oauthRow = () => db.$client.prepare(`select * from server_oauth where server_name = 'jira'`).get()
const activityCount = () => db.$client.prepare('select count(*) from activity').pluck().get()

/** Log jira in over plain HTTP, as a person would in a browser: the URL `upstream login` prints, Approve, the callback. */
async function logInJira(): Promise<void> {
  // no --url: the CLI finds the server's URL in the runtime lease of the database it reads
  const login = await runCli(['upstream', 'login', 'jira', '--db', file, '-o', 'json'])
  expect(login.code, login.stderr).toBe(0)
  const authorize = new URL(JSON.parse(login.stdout).url)
  expect(authorize.searchParams.get('redirect_uri')).toBe(`${server.url}/api/upstream/oauth/callback`)
  const page = await (await fetch(authorize)).text()
  const request = /name="request" value="([^"]+)"/.exec(page)![1]
  const approved = await fetch(`${authorize.origin}/authorize`, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ request, decision: 'approve' }),
  })
  const callback = approved.headers.get('location')!
  expect(callback.startsWith(server.url)).toBe(true)
  expect((await fetch(callback)).status).toBeLessThan(400)
}

describe('a second toolgate serve on the same database', () => {
  it('is refused, naming the running one, and changes nothing the first one runs on', { timeout: 180_000 }, async () => {
    await waitFor('jira waiting for a login', () => connection('jira')?.state === 'pending_auth')
    await logInJira()
    await waitFor('jira ready', () => connection('jira')?.state === 'ready', 60_000)
    await waitFor('slack stuck on its workspace', () => connection('slack')?.detail?.includes('slack is stuck'))
    const before = { transports: transports(), oauth: oauthRow(), records: activityCount() }
    const pid = db.$client.prepare('select pid from runtime_lease').pluck().get()

    const second = await runCli(['serve', '--host', '127.0.0.1', '--port', String(await freePort())], { TOOLGATE_DB: file, TOOLGATE_RUNTIME: 'on', TOOLGATE_API_KEY: KEY })
    expect(second.code).toBe(1)
    expect(second.stderr).toContain(`another toolgate (pid ${pid}, at ${server.url}) runs the upstream runtime on this database`)
    expect(second.stderr).toContain('Nothing was changed.')

    expect(transports()).toEqual(before.transports)
    expect(oauthRow()).toEqual(before.oauth)
    expect(activityCount()).toBe(before.records)
    // the first one's services still answer where its servers point
    const jira = JSON.parse(String((before.transports[0] as { transport: string }).transport)).url
    const workspace = JSON.parse(String((before.transports[1] as { transport: string }).transport)).args[2]
    expect((await fetch(`${workspace}/session`)).status).toBe(503) // answering: stuck until a restart, as staged
    expect((await fetch(jira, { method: 'POST' })).status).toBe(401) // answering: a token is needed
    expect(connection('jira')?.state).toBe('ready')
  })
})
