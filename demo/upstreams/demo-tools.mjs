// The tools the demo state lists for one server, as MCP serves them: the same definitions, so
// the same pins, and the demo's approvals (pending, changed, blocked) hold for the real server.
import { readFileSync } from 'node:fs'
import { z } from 'zod'

const json = z.record(z.string(), z.unknown())
const stateTools = z.looseObject({
  servers: z.array(z.looseObject({
    name: z.string(),
    tools: z.array(z.looseObject({ name: z.string(), description: z.string().optional(), input_schema: json, annotations: json.optional() })),
  })),
})

export function demoTools(server) {
  const state = stateTools.parse(JSON.parse(readFileSync(new URL('../../lib/state/demo-state.json', import.meta.url), 'utf8')))
  return (state.servers.find((s) => s.name === server)?.tools ?? []).map((t) => ({
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    inputSchema: t.input_schema,
    ...(t.annotations !== undefined ? { annotations: t.annotations } : {}),
  }))
}
