import { describe, expect, it } from 'vitest'
import { definitionFields, definitionOf, storedOf, storedOfWire, wireOf, type StoredDefinition, type WireDefinition } from '@/lib/core/definition'
import { toolPin } from '@/lib/preflight/hash'

// One declaration of a tool definition (StoredDefinition) and a mapper each way to the state
// file's names (approvals, pins) and to MCP's wire names: each pair must be each other's inverse.

const full: WireDefinition = {
  name: 'search', title: 'Search', description: 'Finds notes.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
  outputSchema: { type: 'object' }, annotations: { readOnlyHint: true }, execution: { taskSupport: 'optional' },
  icons: [{ src: 'https://example.test/i.png' }], _meta: { ui: { resourceUri: 'ui://notes/search' } },
}
const bare: StoredDefinition = {
  name: 'ping', title: null, description: null, inputSchema: { type: 'object' }, outputSchema: null, annotations: null, execution: null, icons: null, meta: null,
}

// the pins of `full` and `bare` as computed by the hand-written mappers these replaced
const PIN_FULL = 'sha256/v3:929ebfbd66b0add5e51d9a731ed5ea8a5b557b94eacd261c5f543c6722e20526'
const PIN_BARE = 'sha256/v3:4dfb44b3162a4953e44255b217cce76af13044e6570324345640725087af4124'

describe('the tool definition mappers', () => {
  it('a tools/list entry survives storing and serving unchanged, field order included', () => {
    expect(JSON.stringify(wireOf(storedOfWire(full)))).toBe(JSON.stringify(full))
    expect(storedOfWire(full).meta).toEqual(full._meta)
  })

  it('absent fields are stored as null and omitted again on the wire and in the state file', () => {
    expect(storedOfWire({ name: 'ping', inputSchema: { type: 'object' } })).toEqual(bare)
    expect(wireOf(bare)).toEqual({ name: 'ping', inputSchema: { type: 'object' } })
    expect(definitionOf(bare)).toEqual({ name: 'ping', input_schema: { type: 'object' } })
  })

  it('the state file names map back to the same stored definition', () => {
    const stored = storedOfWire(full)
    expect(definitionOf(stored)).toEqual({
      name: 'search', title: 'Search', description: 'Finds notes.', input_schema: full.inputSchema, output_schema: full.outputSchema,
      annotations: full.annotations, execution: full.execution, icons: full.icons, _meta: full._meta,
    })
    expect(storedOf(stored.name, definitionOf(stored))).toEqual(stored)
    expect(storedOf(bare.name, definitionOf(bare))).toEqual(bare)
  })

  it('lists the served fields in the contract order (the order diffs report them in)', () => {
    expect(definitionFields).toEqual(['title', 'description', 'input_schema', 'output_schema', 'annotations', 'execution', 'icons', '_meta'])
  })

  it('pins what it pinned before: a change here must not move any stored pin (hash schema v3)', () => {
    expect(toolPin(definitionOf(storedOfWire(full)))).toBe(PIN_FULL)
    expect(toolPin(definitionOf(bare))).toBe(PIN_BARE)
  })
})
