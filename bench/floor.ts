// The floor: a bare node:http server in its own process that answers a small JSON body and does
// nothing else. Every HTTP figure is compared with it, measured in the same run by the same client.
import { spawn } from 'node:child_process'
import { freePort } from '@/tests/helpers/server'

const SERVER = `
const http = require('node:http')
const body = JSON.stringify({ success: true, data: { tier: 'operator', name: 'floor' } })
http.createServer((req, res) => {
  req.resume()
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body))
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'))
`

export async function startFloor(): Promise<{ url: string; stop: () => void }> {
  const port = await freePort()
  const child = spawn(process.execPath, ['-e', SERVER], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] })
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve())
    child.once('exit', (code) => reject(new Error(`the floor server exited (${code})`)))
  })
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() }
}
