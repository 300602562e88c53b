import { describe, expect, it } from 'vitest'
import { preflightBodySchema } from '@/lib/schemas/preflight'
import { settingsPatchSchema } from '@/lib/schemas/admin'
import { profileNameSchema } from '@/lib/schemas/names'
import { formatIssues } from '@/lib/schemas/issues'
import type { z } from 'zod'

const fault = (schema: z.ZodType, value: unknown) => {
  const r = schema.safeParse(value)
  if (r.success) throw new Error(`${JSON.stringify(value)} parsed`)
  return formatIssues(r.error)
}

describe('issue messages name their field once', () => {
  it('a message that starts with its own field says it after the path only', () => {
    expect(fault(preflightBodySchema, { tools: [] })).toBe('tools: must not be empty')
    expect(fault(preflightBodySchema, { tools: [{ id: 'a:b' }], wait_ms: 20_000 })).toBe('wait_ms: must be ≤ 10000')
    expect(fault(settingsPatchSchema, { two_person_rule: 'maybe' })).toBe('two_person_rule: must be off, destructive or all')
  })

  it('a message that only begins with the field\'s word keeps it; one without a path is whole', () => {
    expect(fault(preflightBodySchema, { tools: [{ id: 'a:b' }], profile: '' })).toMatch(/^profile: profile name must not be empty(;|$)/)
    expect(fault(profileNameSchema, '')).toMatch(/^profile name must not be empty(;|$)/)
  })
})
