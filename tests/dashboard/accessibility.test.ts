import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { signedIn, startDashboard, type Dashboard } from './harness'

// axe-core, run inside the page as a browser extension would: WCAG 2 A and AA rules
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

interface Violation { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }

async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource })
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Violation[] }> } }).axe
    return (await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })).violations
  })
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 5).map((n) => n.target.join(' ')).join(', ')}`)
}

const pages = ['/', '/preflight?id=billing:get_invoice&token=nightly', '/approvals', '/activity', '/servers', '/servers/notes', '/tokens', '/tokens/nightly', '/settings', '/surface']

let d: Dashboard
beforeAll(async () => { d = await startDashboard() })
afterAll(async () => { await d?.stop() })

describe('accessibility (axe-core, WCAG 2.1 A/AA): no serious or critical violation', () => {
  it('on the sign-in page', async () => {
    const context = await d.browser.newContext({ baseURL: d.server.url })
    const page = await context.newPage()
    await page.goto('/login')
    expect(await seriousViolations(page)).toEqual([])
    await context.close()
  })

  for (const scheme of ['light', 'dark'] as const) {
    it(`on every dashboard page, ${scheme} theme`, async () => {
      const { context, page } = await signedIn(d, { width: 1440, height: 900 })
      await page.emulateMedia({ colorScheme: scheme })
      const found: Record<string, string[]> = {}
      for (const path of pages) {
        await page.goto(path)
        await page.waitForLoadState('networkidle')
        const v = await seriousViolations(page)
        if (v.length) found[path] = v
      }
      expect(found).toEqual({})
      await context.close()
    })
  }
})
