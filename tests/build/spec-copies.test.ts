import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '..', '..')
// The shared reference folder sits beside a workspace checkout; a plain clone does not have it.
const shared = path.resolve(root, '..', 'shared')

const copies: [string, string][] = [
  ['docs/spec/preflight-contract.md', 'spec/preflight-contract.md'],
  ['docs/spec/required-tools-extension.schema.json', 'spec/required-tools-extension.schema.json'],
  ['docs/spec/state-file.md', 'spec/state-file.md'],
  ['docs/spec/required-tools-extension.md', 'seeds/000_7c6be8efdf63576f.txt'],
]

describe('the spec copies the tests read', () => {
  it.each(copies)('%s is in the repository and, where the shared reference is present, equal to it', (copy, original) => {
    const ours = readFileSync(path.join(root, copy), 'utf8')
    expect(ours.length).toBeGreaterThan(100)
    const theirs = path.join(shared, original)
    if (existsSync(theirs)) expect(ours).toBe(readFileSync(theirs, 'utf8'))
  })
})
