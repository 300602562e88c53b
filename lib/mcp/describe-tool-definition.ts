import type { Tool } from '@modelcontextprotocol/server'
import { z } from 'zod'
import type { Policy } from '@/lib/core/state'
import { MAX_RIDER_TOOLS } from './extension-schema'
import { policySchema } from '@/lib/preflight/schemas'
import { issuePath } from '@/lib/schemas/issues'
import { invalidParams } from './errors'
import { idBoundsFault } from '@/lib/preflight/ids'

/** describe_tool (contract §11): schemas for ≤ 5 served ids, or a verdict check for ≤ 50. */
export const DESCRIBE_TOOL = 'describe_tool'
export const MAX_DESCRIBE_IDS = 5
export const MAX_CHECK_IDS = MAX_RIDER_TOOLS

const policyProperties = {
  read_only_only: { type: 'boolean', description: 'only tools that declare readOnlyHint: true' },
  exclude_destructive: { type: 'boolean', description: 'exclude tools not declaring destructiveHint: false (read-only tools pass)' },
  exclude_open_world: { type: 'boolean', description: 'exclude tools not declaring openWorldHint: false' },
}

export const describeToolDefinition: Tool = {
  name: DESCRIBE_TOOL,
  title: 'Describe or preflight tools',
  description:
    `Without check: the schemas of up to ${MAX_DESCRIBE_IDS} served tools. With check: true: a preflight of up to ${MAX_CHECK_IDS} `
    + 'tool ids (server:tool) from local proxy state only: per id ready, or unavailable with a reason, whether retrying helps, '
    + 'and the fix. Verdicts only; no upstream calls.',
  inputSchema: {
    type: 'object',
    properties: {
      tool_ids: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'tool ids, <server>:<tool>' },
      check: { type: 'boolean', description: 'evaluate availability instead of describing schemas' },
      filters: { type: 'object', properties: policyProperties, additionalProperties: false, description: 'annotation policy; only with check: true' },
    },
    required: ['tool_ids'],
    additionalProperties: false,
  },
  annotations: { title: 'Describe or preflight tools', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
}

const argsSchema = z.strictObject({
  tool_ids: z.array(
    z.string({ error: 'must be a string' }),
    { error: (iss) => (iss.input === undefined ? 'is required' : 'must be an array of strings') },
  ).min(1, 'must not be empty'),
  check: z.boolean({ error: 'must be a boolean' }).optional(),
  filters: policySchema.optional(),
}, { error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown argument ${(iss.keys ?? []).map((k) => `"${k}"`).join(', ')}` : 'arguments must be an object') })

export type DescribeArgs =
  | { mode: 'describe'; ids: string[] }
  | { mode: 'check'; ids: string[]; policy?: Policy }

/** Validate describe_tool's arguments; returns the fault (a tool error) or the request. */
export function parseDescribeArgs(raw: Record<string, unknown> | undefined): DescribeArgs | { fault: string } {
  const args = raw ?? {}
  // Hash pinning stays on REST at the operator tier (seed "Reserved fields"), in any form.
  if ('expect_hashes' in args) return { fault: 'expect_hashes is reserved: hash pins are not accepted in band' }
  if ('check' in args && typeof args.check !== 'boolean') return { fault: 'check must be a boolean' }
  const check = args.check === true
  if (Array.isArray(args.tool_ids)) {
    const max = check ? MAX_CHECK_IDS : MAX_DESCRIBE_IDS
    // Caps count the raw array, before trimming and de-duplication (contract §1).
    if (args.tool_ids.length > max) return { fault: `too many tool_ids: ${args.tool_ids.length} (max ${max} ${check ? 'with' : 'without'} check:true)` }
  }
  const parsed = argsSchema.safeParse(args)
  if (!parsed.success) {
    return { fault: parsed.error.issues.map((i) => (i.path.length ? `${issuePath('', i.path)} ${i.message}` : i.message)).join('; ') }
  }
  const { tool_ids, filters } = parsed.data
  // An overlong id is a request error on every surface (JSON-RPC -32602 in band), not a tool error.
  const tooLong = tool_ids.map(idBoundsFault).find((f) => f !== null)
  if (tooLong) throw invalidParams(`describe_tool: ${tooLong}`)
  if (filters !== undefined && !check) return { fault: 'filters requires check: true' }
  return check ? { mode: 'check', ids: tool_ids, ...(filters ? { policy: filters } : {}) } : { mode: 'describe', ids: tool_ids }
}
