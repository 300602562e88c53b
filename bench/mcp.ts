// MCP endpoint benchmarks: the served listing with and without the Shape A rider, Shape B
// resolve, and describe_tool check mode, as a 2026-07-28 client sends them over loopback.
import { readdirSync, readFileSync } from 'node:fs'
import { EXTENSION_ID } from '@/lib/schemas/extension'
import { readyIds } from './state'
import { fmt, printTable, printTarget, timeInterleavedAsync, type Row } from './stats'

export interface McpBenchContext { url: string; agentToken: string; /** the server's process group, whose CPU the listen bench reads */ pid: number }

const MODERN = '2026-07-28'
let id = 0

async function send(mcp: string, token: string, method: string, params: Record<string, unknown>): Promise<void> {
  const meta = (params._meta ?? {}) as Record<string, unknown>
  const res = await fetch(mcp, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`,
      'mcp-protocol-version': MODERN, 'mcp-method': method,
      ...(method === 'tools/call' && typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0', id: ++id, method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXTENSION_ID]: { version: 1 } } },
          ...meta,
        },
      },
    }),
  })
  const body = (await res.json()) as { error?: { message: string } }
  if (res.status !== 200 || body.error) throw new Error(`${method} answered ${res.status}: ${body.error?.message ?? ''}`)
}

const rider = (ids: string[]) => ({ _meta: { [EXTENSION_ID]: { tools: ids.map((i) => ({ id: i })) } } })

export async function benchMcp(ctx: McpBenchContext): Promise<Row[]> {
  const mcp = `${ctx.url}/mcp`
  const [plain, rider10, rider50] = await timeInterleavedAsync(1000, {
    'tools/list first page, no rider': () => send(mcp, ctx.agentToken, 'tools/list', {}),
    'tools/list first page, 10-id rider (incl. durable record)': (i) => send(mcp, ctx.agentToken, 'tools/list', rider(readyIds(10, i))),
    'tools/list first page, 50-id rider (incl. durable record)': (i) => send(mcp, ctx.agentToken, 'tools/list', rider(readyIds(50, i))),
  })
  const [resolve, check50] = await timeInterleavedAsync(1000, {
    'tools/resolve, one served tool (incl. durable record)': (i) => send(mcp, ctx.agentToken, 'tools/resolve', { name: readyIds(1, i)[0], arguments: {} }),
    'describe_tool check, 50 ids (incl. durable record)': (i) => send(mcp, ctx.agentToken, 'tools/call', { name: 'describe_tool', arguments: { tool_ids: readyIds(50, i), check: true } }),
  })
  rider10.note = `+${(rider10.p95 - plain.p95).toFixed(2)} ms p95 over no rider`
  rider50.note = `+${(rider50.p95 - plain.p95).toFixed(2)} ms p95 over no rider`
  const rows = [plain, rider10, rider50, resolve, check50]
  printTable('MCP endpoint on loopback (2026-07-28, JSON responses)', rows, plain)
  printTarget('a 50-id Shape A rider adds ≤ 1.5 ms p95 to tools/list', `+${fmt(rider50.p95 - plain.p95)}`, rider50.p95 - plain.p95 <= 1.5)
  return rows
}

/** CPU time (ms) the processes of group `pgid` have used so far, from Linux's /proc; undefined elsewhere. */
function groupCpuMs(pgid: number): number | undefined {
  let ticks = 0
  try {
    for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
      let stat: string
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      } catch {
        continue // gone meanwhile
      }
      // after the command (which may hold spaces): state ppid pgrp … utime stime (fields 3, 4, 5 … 14, 15)
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(f[2]) === pgid) ticks += Number(f[11]) + Number(f[12])
    }
  } catch {
    return undefined
  }
  return ticks * 10 // USER_HZ is 100 on Linux
}

const LISTENERS = 20
const IDLE_MS = 5_000

/**
 * What agents listening for list_changed cost the server while nothing changes: 20 open
 * 2025-11-25 GET streams of one token, and the server's CPU over 5 idle seconds (each stream's
 * listings are read only after a change, once per token: lib/mcp/listen.ts).
 */
export async function benchListen(ctx: McpBenchContext): Promise<void> {
  const left = new AbortController()
  const streams = await Promise.all(Array.from({ length: LISTENERS }, () => fetch(`${ctx.url}/mcp`, {
    method: 'GET', signal: left.signal,
    headers: { accept: 'text/event-stream', authorization: `Bearer ${ctx.agentToken}`, 'mcp-protocol-version': '2025-11-25' },
  })))
  try {
    if (streams.some((s) => s.status !== 200)) throw new Error(`a GET stream answered ${streams.find((s) => s.status !== 200)!.status}`)
    await new Promise((r) => setTimeout(r, 2_000)) // the baselines are read
    const before = groupCpuMs(ctx.pid)
    if (before === undefined) return void console.log('listen bench: no /proc, skipped')
    await new Promise((r) => setTimeout(r, IDLE_MS))
    const used = groupCpuMs(ctx.pid)! - before
    console.log(`\n${LISTENERS} idle 2025-11-25 list_changed streams: the server used ${(used / (IDLE_MS / 1000)).toFixed(0)} ms CPU per second`)
  } finally {
    left.abort()
  }
}
