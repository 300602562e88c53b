import 'server-only'
import type { ChildProcess } from 'node:child_process'
import { SSEClientTransport, StreamableHTTPClientTransport, type JSONRPCMessage, type Transport as SdkTransport } from '@modelcontextprotocol/client'
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio'
import type { Db } from '@/db/client'
import { oauthOf } from '@/db/queries/upstream'
import { isStdio, type Transport } from '@/db/schema'
import { projectRoot } from '@/lib/core/paths'
import { releasingFetch } from '@/lib/signals'
import { upstreamFetch } from './fetch'
import { DbOAuthProvider, CALLBACK_PATH } from './oauth'
import { refreshOnce } from './refresh-once'
import { tapResponse, type OnStreamRequest } from './stream-requests'
import { acceptTaskHandles } from './task-handles'
import { sendAtTurnEnd } from '@/lib/activity/record'

/** Where a server's stderr lines and the runtime's events about it go (its log). */
export type Log = (stream: 'stderr' | 'event', line: string) => void

/** What a transport is made from: the server, how it is reached, and the secrets it is given. */
export interface TransportSpec { name: string; transport: Transport; secrets: Record<string, string> }

/**
 * The SDK's stdio transport, its writes to the server gathered per turn of the event loop: the
 * first message of a turn is written at once, and any more sent in the same turn go together in
 * one write (writev) when it ends — or before the turn's group commit blocks the loop for its
 * fsync (sendAtTurnEnd): the server works on them meanwhile — instead of a syscall and a wakeup
 * of the server's process each. Its pipe is the SDK's own (an internal field): without it, each
 * message is written at once.
 */
class GatheredStdio extends StdioClientTransport {
  private wroteThisTurn = false

  override send(message: JSONRPCMessage): Promise<void> {
    const stdin = (this as unknown as { _process?: ChildProcess })._process?.stdin
    if (stdin && !stdin.writableCorked) {
      if (this.wroteThisTurn) {
        stdin.cork()
        sendAtTurnEnd(() => stdin.uncork())
      } else {
        this.wroteThisTurn = true
        setImmediate(() => { this.wroteThisTurn = false })
      }
    }
    return super.send(message)
  }
}

/** The SDK transport for a server: its process (stdio, stderr into the log) or its URL (with OAuth). */
export function makeTransport(db: Db, spec: TransportSpec, baseUrl: string, log: Log, onStreamRequest?: OnStreamRequest): SdkTransport {
  const t = spec.transport
  const secretValues = Object.fromEntries((t.secrets ?? []).map((n) => [n, spec.secrets[n]]))
  if (isStdio(t)) {
    const transport = new GatheredStdio({
      command: t.command, args: t.args ?? [], cwd: t.cwd ?? projectRoot(), stderr: 'pipe',
      env: { ...getDefaultEnvironment(), ...(t.env ?? {}), ...secretValues },
    })
    let partial = ''
    transport.stderr?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n')
      partial = lines.pop() ?? ''
      for (const l of lines) if (l.trim()) log('stderr', l)
    })
    return transport
  }
  // OAuth once there is something to use (a login's tokens, or client credentials): a server that
  // challenges before any login reads pending_auth, and nothing registers with its
  // authorization server until an operator starts a login
  const oauth = oauthOf(db, spec.name)
  const authProvider = oauth?.tokens || oauth?.grant === 'client_credentials' ? new DbOAuthProvider(db, spec.name, t.url, new URL(CALLBACK_PATH, baseUrl).href, false) : undefined
  // the transport gives every request one signal: each request follows it only while it lasts
  const fetch = releasingFetch(serverFetch(new URL(t.url), { ...(t.headers ?? {}), ...secretValues }, authProvider, onStreamRequest))
  return t.type === 'sse'
    ? new SSEClientTransport(new URL(t.url), { authProvider, fetch })
    : acceptTaskHandles(new StreamableHTTPClientTransport(new URL(t.url), { authProvider, fetch }))
}

/**
 * An HTTP server's fetch: its configured headers (secrets among them) go to its own origin only,
 * and any other request (its OAuth issuer's token endpoint) goes through the OAuth rule without them.
 * A call's response stream is read for the server requests it carries (which call each is for).
 * Concurrent refreshes of one token are one request (refresh-once.ts).
 */
function serverFetch(server: URL, headers: Record<string, string>, oauth: DbOAuthProvider | undefined, onStreamRequest: OnStreamRequest | undefined): typeof fetch {
  return refreshOnce((input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    if (url.origin !== server.origin) return oauth ? oauth.fetch(input, init) : upstreamFetch(input, init)
    const merged = new Headers(init?.headers)
    for (const [k, v] of Object.entries(headers)) merged.set(k, v)
    return upstreamFetch(input, { ...init, headers: merged }).then((r) => tapResponse(init?.body, r, onStreamRequest))
  })
}
