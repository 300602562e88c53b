import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seriousViolations, signedIn, visit, startDashboard, type Dashboard } from './harness'

const pages = ['/', '/preflight?id=billing:get_invoice&token=nightly', '/approvals', '/activity', '/activity?token=nightly&span=7d', '/servers', '/servers/notes', '/tokens', '/tokens/nightly', '/settings', '/surface', '/setup', '/connect']

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
        await visit(page, path)
        // the Activity page keeps its live stream open (a fetch), so the network is never idle there
        if (path.startsWith('/activity')) await page.getByText('Live: new records appear here as they are recorded.').waitFor()
        else await page.waitForLoadState('networkidle')
        const v = await seriousViolations(page)
        if (v.length) found[path] = v
      }
      expect(found).toEqual({})
      await context.close()
    })
  }
})
