// A lean HTTP client for the load section: node:http on keep-alive sockets. fetch (undici) costs
// the load generator so much CPU that, sharing this machine's two cores with the server, it
// could not drive even the bare floor past ~3,300 requests/s: it measured itself.
import http from 'node:http'

const agent = new http.Agent({ keepAlive: true })

/** POST a JSON body; resolves with the status and the parsed JSON answer. */
export function postJson(url: URL, body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
    }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) })
        } catch (e) {
          reject(e)
        }
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}
