import { ProtocolError, ProtocolErrorCode, type CallToolResult } from '@modelcontextprotocol/server'
import type { ToolResult, UnavailableResult } from '@/lib/preflight/evaluate'
import type { CallOutcome } from '@/lib/upstream/dispatch'
import { quote } from '@/lib/core/log'
import { currentMcpOp } from '@/lib/telemetry/context'
import { invalidParams } from './errors'
import { noteContentUris } from './resources'
import type { PreflightData } from '@/lib/gate/check'
import type { Facet, FacetTool, ResolveFacet } from '@/lib/schemas/extension'
import { EXTENSION_ID, wireReasons } from '@/lib/schemas/extension'

type WireReason = (typeof wireReasons)[number]
const onWire: ReadonlySet<string> = new Set(wireReasons)
const isWireReason = (r: string): r is WireReason => onWire.has(r)

/**
 * One evaluator result as the MCP surface carries it. Fields are copied by name, never
 * spread, so nothing the evaluator may add later (a hash above all: the in-band surface
 * never carries one, seed "Verdict Payload") can leak onto the wire.
 */
export function wireResult(t: ToolResult): FacetTool {
  if (t.status === 'ready') return { id: t.id, status: 'ready' }
  // Agent-tier evaluation never yields the three off-wire codes; refusing here keeps the
  // facet honest if a caller ever passes an operator-tier result by mistake.
  if (!isWireReason(t.reason)) throw new Error(`reason ${t.reason} cannot appear on the MCP surface`)
  return {
    id: t.id,
    status: 'unavailable',
    reason: t.reason,
    retryable: t.retryable,
    ...(t.action ? { action: t.action } : {}),
    detail: t.detail,
    remediation: t.remediation,
    ...(t.did_you_mean?.length ? { did_you_mean: t.did_you_mean } : {}),
  }
}

/** Shape A: the batch facet; its request_id is the activity record's. */
export function shapeAFacet(data: PreflightData): Facet {
  return { verdict: data.verdict, checked_at: data.checked_at, request_id: data.request_id, tools: data.tools.map(wireResult) }
}

/** Shape B: the single verdict without id (the resolved tool names itself). */
export function shapeBFacet(t: ToolResult): ResolveFacet {
  const w = wireResult(t)
  if (w.status === 'ready') return { status: 'ready' }
  const { id: _id, ...facet } = w
  return facet
}

/** A refused call: a tool error carrying the verdict preflight gives for the same id. */
function refusal(v: UnavailableResult): CallToolResult {
  const facet = shapeBFacet(v)
  return {
    isError: true,
    content: [{ type: 'text', text: `unavailable (${v.reason}): ${v.detail}. Fix: ${v.remediation}` }],
    structuredContent: facet,
    _meta: { [EXTENSION_ID]: facet },
  }
}

/** A call under call approval that did not run: a tool error naming the call, so a retry can follow it. */
function heldResult(callId: string, text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }], structuredContent: { call_id: callId } }
}

/**
 * A tools/call outcome as MCP carries it. A name the session could not know (absent, out of
 * scope, unconfigured, malformed) is the protocol error -32602 "Unknown tool" (contract §13); a
 * known tool withheld by a gate is a tool error carrying its verdict.
 */
const serverOf = (id: string) => id.slice(0, id.indexOf(':'))

/**
 * -32602 "Unknown tool", with the preflight's did_you_mean when it has one (tools in the caller's
 * own scope only, so an id outside it reads as any absent one): in the message, which is what a
 * model reads, and as data.did_you_mean.
 */
function unknownTool(name: string, suggestions: string[] | undefined): ProtocolError {
  if (!suggestions?.length) return invalidParams(`Unknown tool: ${quote(name)}`)
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${quote(name)} (did you mean ${suggestions.map((s) => quote(s)).join(' or ')}?)`, { did_you_mean: suggestions })
}

export function callResult(name: string, outcome: CallOutcome, caller: string | undefined): CallToolResult {
  const result = wordedResult(name, outcome, caller)
  currentMcpOp()?.result(result) // isError: the request's error.type is tool_error
  return result
}

function wordedResult(name: string, outcome: CallOutcome, caller: string | undefined): CallToolResult {
  switch (outcome.kind) {
    case 'refused':
      if (outcome.verdict.reason === 'not_found') throw unknownTool(name, outcome.verdict.did_you_mean)
      return refusal(outcome.verdict)
    case 'failed':
      return { isError: true, content: [{ type: 'text', text: outcome.error }] }
    case 'rejected':
      // the upstream's JSON-RPC error, as it answered it
      throw new ProtocolError(outcome.code, outcome.message, outcome.data)
    case 'cancelled':
      // the client cancelled: per the spec nothing is sent back, and the SDK sends nothing
      return { isError: true, content: [{ type: 'text', text: 'the call was cancelled' }] }
    case 'answered':
      // as given; the resource URIs it hands out read back from its server (lib/mcp/resources.ts)
      noteContentUris(caller, serverOf(name), outcome.result.content)
      return outcome.result
    case 'held':
      return heldResult(outcome.call.id, `awaits an operator's approval of this exact call (call id ${outcome.call.id}). An operator decides in the dashboard's Approvals inbox or with: toolgate calls approve ${outcome.call.id}. Retry the same call (same arguments) to keep waiting: it joins this request.`)
    case 'denied':
      return heldResult(outcome.call.id, `denied by an operator${outcome.call.reason ? `: ${outcome.call.reason}` : ''} (call id ${outcome.call.id})`)
    case 'expired':
      return heldResult(outcome.call.id, `expired without an operator's decision (call id ${outcome.call.id}); calling again asks again`)
  }
}
