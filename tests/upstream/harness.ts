import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, writeFileSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { serverConnections } from '@/db/schema'
import { createAgentToken } from '@/lib/admin/tokens'
import { addServer } from '@/lib/admin/upstreams'
import { freePort } from '@/tests/helpers/server'

export const FIXTURE = path.resolve(import.meta.dirname, '..', 'fixtures', 'upstream-server.mjs')

export interface FixtureTool {
  name: string
  description?: string
  title?: string
  inputSchema?: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  annotations?: Record<string, unknown>
  execution?: Record<string, unknown>
  icons?: unknown[]
  _meta?: Record<string, unknown>
  error?: boolean
  /** a call takes this long, reporting progress every progressEveryMs when the caller asked for it */
  sleepMs?: number
  progressEveryMs?: number
  /** log messages the call sends before its result */
  logs?: string[]
  /** the call blocks until this file exists */
  releaseFile?: string
  /** the call answers exactly this */
  result?: Record<string, unknown>
  /** the call answers this JSON-RPC error */
  rpcError?: { code: number; message: string; data?: unknown }
  /** the call ends its process instead of answering */
  exit?: boolean
  /** the call asks its client for a sampling (declared or not) and says what came back */
  sample?: boolean
}
export interface FixturePrompt { name: string; description?: string; arguments?: { name: string; description?: string; required?: boolean }[]; text: string }
export interface FixtureResource { uri: string; name: string; description?: string; mimeType?: string; text: string; /** a read takes this long (abortable; logged to the call log) */ sleepMs?: number }
export interface Control {
  mode?: 'ok' | 'crash' | 'hang'; startMode?: 'crash'; pageSize?: number; startDelayMs?: number; listDelayMs?: number; tools: FixtureTool[]
  instructions?: string; prompts?: FixturePrompt[]; resources?: FixtureResource[]; resourceTemplates?: { uriTemplate: string; name: string; description?: string }[]
  /** resources/subscribe offered, and a subscribed resource whose text changes announced */
  subscribe?: boolean
}

/** A stdio fixture upstream: its transport, and handles to steer it and read its message count. */
export function stdioFixture(control: Control) {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-fixture-'))
  const controlFile = path.join(dir, 'control.json')
  const countFile = path.join(dir, 'count')
  const callLog = path.join(dir, 'calls.jsonl')
  const set = (c: Control) => writeFileSync(controlFile, JSON.stringify({ mode: 'ok', ...c }))
  set(control)
  return {
    transport: { command: process.execPath, args: [FIXTURE], env: { FIXTURE_CONTROL: controlFile, FIXTURE_COUNT: countFile, FIXTURE_CALL_LOG: callLog } },
    set,
    received: () => (existsSync(countFile) ? Number(readFileSync(countFile, 'utf8') || '0') : 0),
    /** every tools/call the upstream received, in order, and every cancellation it saw */
    calls: (): { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown>; cancelled?: true; reason?: unknown }[] => (existsSync(callLog) ? readFileSync(callLog, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []),
    /** the same fixture serving Streamable HTTP on a loopback port (its own process, started by the caller) */
    httpEnv: (port: number) => ({ FIXTURE_CONTROL: controlFile, FIXTURE_COUNT: countFile, FIXTURE_CALL_LOG: callLog, FIXTURE_PORT: String(port) }),
  }
}

/**
 * Poll until `fn` returns a truthy value; fail with `what` and the last value otherwise. The
 * deadline is generous on purpose: it bounds a hang, it does not measure speed (a quiet machine
 * answers in about a second; the full suite on 2 cores can take many times that).
 */
export async function waitFor<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 45_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  let last: T | undefined
  for (;;) {
    last = await fn()
    if (last) return last as NonNullable<T>
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(last)})`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

export const connectionState = (db: Db, server: string) =>
  db.select().from(serverConnections).where(eq(serverConnections.serverName, server)).get()

export const runtimeEnv = {
  TOOLGATE_RUNTIME: 'on',
  TOOLGATE_BACKOFF_BASE_MS: '200',
  TOOLGATE_BACKOFF_MAX_MS: '800',
  // a node fixture can take seconds to start on a loaded 2-core machine; a hang still shows as connecting
  TOOLGATE_CONNECT_TIMEOUT_MS: '10000',
  TOOLGATE_PING_INTERVAL_MS: '400',
  TOOLGATE_RELIST_INTERVAL_MS: '1000',
}

/** An agent token with every server in scope: /mcp answers agent tokens only (contract §13). */
export async function agentToken(db: Db): Promise<string> {
  return (await createAgentToken(db, 'upstream-tests', { allowedServers: ['*'], profilePin: null }, { actor: 'test' })).token
}

const EVERYTHING = path.resolve(import.meta.dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js')
const LOOPBACK_ONLY = path.resolve(import.meta.dirname, '..', 'fixtures', 'loopback-only.cjs')

/** The reference server, server-everything, as a command: over stdio, or serving HTTP on $PORT. */
export const everything = (mode: 'stdio' | 'sse' | 'streamableHttp') => ({ command: process.execPath, args: ['--require', LOOPBACK_ONLY, EVERYTHING, mode] })

/**
 * server-everything serving Streamable HTTP on a free loopback port, added to toolgate as
 * `name` (trusted) and waited for until ready. Its process is the caller's to stop.
 */
export async function everythingOverHttp(db: Db, name: string): Promise<ChildProcess> {
  const port = await freePort()
  const { command, args } = everything('streamableHttp')
  const child = spawn(command, args, { env: { ...process.env, PORT: String(port) }, stdio: 'ignore' })
  try {
    await waitFor(`${name} (server-everything, Streamable HTTP) listening`, () => fetch(`http://127.0.0.1:${port}/mcp`, { signal: AbortSignal.timeout(500) }).then(() => true, () => false))
    await addServer(db, { name, transport: { url: `http://127.0.0.1:${port}/mcp` }, trusted: true }, { actor: 'test' })
    await waitFor(`${name} ready`, () => connectionState(db, name)?.state === 'ready')
  } catch (e) {
    child.kill()
    throw e
  }
  return child
}
