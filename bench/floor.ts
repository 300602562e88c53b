// The floor: a bare node:http server in its own process that answers a small JSON body and does
// nothing else. Every HTTP figure is compared with it, measured in the same run by the same client.
// The durable floor also commits one row per request with an fsync (synchronous=FULL, WAL), as
// toolgate must before it answers a check: what any server keeping that rule pays on this disk.
import { spawn } from 'node:child_process'
import { tempDbFile } from '@/tests/helpers/db'
import { freePort } from '@/tests/helpers/server'

const SERVER = `
const http = require('node:http')
let commit = () => {}
if (process.env.FLOOR_DB) {
  const db = new (require('better-sqlite3'))(process.env.FLOOR_DB)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  db.exec('create table if not exists records (id integer primary key, at integer, data text)')
  const insert = db.prepare('insert into records (at, data) values (?, ?)')
  commit = (data) => insert.run(Date.now(), data)
}
const body = JSON.stringify({ success: true, data: { tier: 'operator', name: 'floor' } })
http.createServer((req, res) => {
  let data = ''
  req.on('data', (c) => (data += c))
  req.on('end', () => {
    commit(data)
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body)
  })
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'))
`

export async function startFloor(opts: { durable?: boolean } = {}): Promise<{ url: string; stop: () => void }> {
  const port = await freePort()
  const env = { ...process.env, PORT: String(port), ...(opts.durable ? { FLOOR_DB: tempDbFile() } : {}) }
  // cwd: the project, so the durable floor finds better-sqlite3
  const child = spawn(process.execPath, ['-e', SERVER], { env, cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] })
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve())
    child.once('exit', (code) => reject(new Error(`the floor server exited (${code})`)))
  })
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() }
}
