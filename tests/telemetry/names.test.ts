import * as semconv from '@opentelemetry/semantic-conventions/incubating'
import { describe, expect, it } from 'vitest'
import { ATTR, EXECUTE_TOOL, MCP_DURATION_BUCKETS, METRIC } from '@/lib/telemetry/names'

// toolgate copies the MCP conventions' names (the incubating entry may rename them in a minor
// release); this holds the copies to the pinned package, name by name.
describe('the semantic conventions names', () => {
  it.each(Object.entries(ATTR))('%s is the conventions\' attribute', (key, value) => {
    expect((semconv as Record<string, unknown>)[`ATTR_${key}`]).toBe(value)
  })

  it('the two operation-duration metrics and execute_tool', () => {
    expect(METRIC.SERVER_DURATION).toBe(semconv.METRIC_MCP_SERVER_OPERATION_DURATION)
    expect(METRIC.CLIENT_DURATION).toBe(semconv.METRIC_MCP_CLIENT_OPERATION_DURATION)
    expect(EXECUTE_TOOL).toBe(semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL)
  })

  it('the buckets are the ones docs/gen-ai/mcp.md gives', () => {
    expect(MCP_DURATION_BUCKETS).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300])
  })
})
