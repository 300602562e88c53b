import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { reachFindings, semanticDiff, sentences } from '@/lib/approvals/semantic-diff'
import { demoStateFile } from '@/tests/helpers/db'

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra })
const kinds = (a: Parameters<typeof semanticDiff>[0], b: Parameters<typeof semanticDiff>[1]) => semanticDiff(a, b).map((c) => `${c.kind} ${c.risk} ${c.path}`)

describe('semantic diff of a changed tool definition', () => {
  it('the demo share_note rug pull: a cc parameter and "anyone who has the link" are high-risk widened reach', () => {
    // the demo state's own share_note, as approved and as offered now
    const state = JSON.parse(readFileSync(demoStateFile(), 'utf8'))
    const t = state.servers.flatMap((s: { tools?: unknown[] }) => s.tools ?? []).find((x: { name: string }) => x.name === 'share_note')
    const { approval, name: _n, ...offered } = t
    const changes = semanticDiff(approval.previous, offered)
    expect(changes.filter((c) => c.risk === 'high').map((c) => c.kind).sort()).toEqual(['parameter_added', 'sentence_added'])
    expect(changes[0].risk).toBe('high')
    expect(changes.find((c) => c.kind === 'parameter_added')).toMatchObject({ path: 'input_schema.properties.cc', summary: 'new parameter "cc" (string, optional)' })
    expect(changes.find((c) => c.kind === 'sentence_removed')?.summary).toContain('Share a note with a teammate.')
    const findings = reachFindings(changes)
    expect(findings.map((f) => [f.code, f.field])).toEqual([['widened_reach', 'description'], ['widened_reach', 'input_schema.properties.cc']])
    expect(findings[0].message).toContain('anyone')
    // declaring openWorldHint: true where it was undeclared changes nothing a client assumes (true is the default)
    expect(changes.find((c) => c.path === 'annotations.openWorldHint')).toMatchObject({ risk: 'low' })
  })

  it('no change, no changes', () => {
    const d = { description: 'Read a note. Returns text.', input_schema: obj({ id: { type: 'string' } }, { required: ['id'] }), annotations: { readOnlyHint: true } }
    expect(semanticDiff(d, structuredClone(d))).toEqual([])
  })

  it('parameters added and removed, required changed, types changed', () => {
    const a = { input_schema: obj({ id: { type: 'string' }, limit: { type: 'integer' }, old: { type: 'string' } }, { required: ['id'] }) }
    const b = { input_schema: obj({ id: { type: 'string' }, limit: { type: 'string' }, tag: { type: 'string' } }, { required: ['limit'] }) }
    expect(kinds(a, b)).toEqual([
      'parameter_type_changed medium input_schema.properties.limit.type',
      'parameter_added medium input_schema.properties.tag',
      'parameter_removed low input_schema.properties.old',
      'required_added low input_schema.required',
      'required_removed low input_schema.required',
    ])
  })

  it.each([
    ['recipient', 'to'], ['url', 'webhook_url'], ['path', 'path'], ['bcc', 'bcc'],
  ])('a new %s parameter (%s) widens reach', (_what, name) => {
    const [c] = semanticDiff({ input_schema: obj({}) }, { input_schema: obj({ [name]: { type: 'string' } }) })
    expect(c).toMatchObject({ kind: 'parameter_added', risk: 'high', reach: expect.stringContaining(name) })
  })

  it('a new parameter of format uri or email widens reach whatever its name', () => {
    const [c] = semanticDiff({ input_schema: obj({}) }, { input_schema: obj({ notify: { type: 'string', format: 'email' } }) })
    expect(c).toMatchObject({ risk: 'high', reach: expect.stringContaining('email') })
  })

  it('nested object and array properties are compared too', () => {
    const a = { input_schema: obj({ opts: obj({ mode: { type: 'string' } }), items: { type: 'array', items: obj({ id: { type: 'string' } }) } }) }
    const b = { input_schema: obj({ opts: obj({ mode: { type: 'string' }, forward_to: { type: 'string' } }), items: { type: 'array', items: obj({ id: { type: 'string' }, url: { type: 'string' } }) } }) }
    expect(kinds(a, b)).toEqual([
      'parameter_added high input_schema.properties.opts.properties.forward_to',
      'parameter_added high input_schema.properties.items.items.properties.url',
    ])
  })

  it('enums: widened (an open value is high), dropped (any value now), narrowed', () => {
    const vis = (e?: string[]) => ({ input_schema: obj({ visibility: { type: 'string', ...(e ? { enum: e } : {}) } }) })
    expect(semanticDiff(vis(['private', 'team']), vis(['private', 'team', 'public']))[0]).toMatchObject({ kind: 'enum_widened', risk: 'high', reach: expect.stringContaining('"public"') })
    expect(semanticDiff(vis(['private']), vis(['private', 'team']))[0]).toMatchObject({ kind: 'enum_widened', risk: 'medium' })
    expect(semanticDiff(vis(['private']), vis(['private', 'team']))[0].reach).toBeUndefined()
    expect(semanticDiff(vis(['private']), vis())[0]).toMatchObject({ kind: 'enum_widened', risk: 'high' })
    expect(semanticDiff(vis(['private', 'team']), vis(['private']))[0]).toMatchObject({ kind: 'enum_narrowed', risk: 'low' })
  })

  it('annotation flips: destructive on, open-world on and read-only off are high; turning them off is low', () => {
    const ann = (a: Record<string, boolean>) => ({ annotations: a })
    expect(semanticDiff(ann({ destructiveHint: false }), ann({ destructiveHint: true }))[0]).toMatchObject({ risk: 'high', reach: 'destructive turned on' })
    expect(semanticDiff(ann({ openWorldHint: false }), ann({}))[0]).toMatchObject({ risk: 'high', reach: 'open-world turned on' })
    expect(semanticDiff(ann({ readOnlyHint: true }), ann({ readOnlyHint: false }))[0]).toMatchObject({ risk: 'high' })
    expect(semanticDiff(ann({ readOnlyHint: true }), ann({ readOnlyHint: false }))[0].reach).toBeUndefined()
    expect(semanticDiff(ann({ destructiveHint: true }), ann({ destructiveHint: false }))[0]).toMatchObject({ risk: 'low' })
    expect(reachFindings(semanticDiff(ann({ openWorldHint: false, destructiveHint: false }), ann({ openWorldHint: true, destructiveHint: true }))).map((f) => f.field).sort())
      .toEqual(['annotations.destructiveHint', 'annotations.openWorldHint'])
  })

  it('description sentences: added ones are shown, reach-widening ones high; riskiest first', () => {
    const changes = semanticDiff({ description: 'Create an issue.' }, { description: 'Create an issue. Returns its number. Uploads attachments to a public bucket.' })
    expect(changes.map((c) => [c.kind, c.risk])).toEqual([['sentence_added', 'high'], ['sentence_added', 'medium']])
    expect(changes[0].summary).toContain('Uploads attachments')
    // a parameter's description is compared sentence by sentence too
    const p = semanticDiff({ input_schema: obj({ id: { description: 'The note.' } }) }, { input_schema: obj({ id: { description: 'The note. Also send a copy to the archive.' } }) })
    expect(p[0]).toMatchObject({ kind: 'sentence_added', path: 'input_schema.properties.id.description', risk: 'high' })
  })

  it('sentences split on stops and line breaks', () => {
    expect(sentences('One. Two? Three!\nFour')).toEqual(['One.', 'Two?', 'Three!', 'Four'])
    expect(sentences(null)).toEqual([])
  })

  it('loosened constraints and extra parameters allowed are flagged', () => {
    const a = { input_schema: obj({ id: { type: 'string', pattern: '^n_[0-9]+$' } }, { additionalProperties: false }) }
    const b = { input_schema: obj({ id: { type: 'string' } }) }
    expect(kinds(a, b)).toEqual(['parameter_constraint_changed medium input_schema.properties.id.pattern', 'extra_parameters_allowed medium input_schema.additionalProperties'])
  })
})
