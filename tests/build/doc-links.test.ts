import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

// Every relative link in the README and docs/ leads somewhere: the file exists, and an anchor
// names one of its headings (GitHub's slugs), so moving reference material cannot strand a reader.
const root = path.resolve(import.meta.dirname, '..', '..')
const pages = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]

const withoutCode = (text: string) => text.replace(/```[\s\S]*?```/g, '')
const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')
const anchorsOf = (file: string) => new Set(withoutCode(readFileSync(file, 'utf8')).split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => slug(l.replace(/^#+ /, ''))))

describe('links in the README and docs', () => {
  it.each(pages)('%s: every relative link resolves, anchors included', (page) => {
    const text = withoutCode(readFileSync(path.join(root, page), 'utf8'))
    const broken: string[] = []
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue // http(s), mailto
      const [file, anchor] = target.split('#')
      const resolved = file ? path.resolve(path.dirname(path.join(root, page)), file) : path.join(root, page)
      if (!existsSync(resolved)) broken.push(`${target}: no such file`)
      else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) broken.push(`${target}: no such heading`)
    }
    expect(broken).toEqual([])
  })
})
