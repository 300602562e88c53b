import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { NextRequest } from 'next/server'
import { describe, expect, it } from 'vitest'
import { dashboardPages, isDashboardPath } from '@/lib/dashboard/routes'
import { proxy } from '../../../proxy'

const pagesDir = path.resolve(import.meta.dirname, '../../../app/(dashboard)')
/** The dashboard's page folders: every folder under app/(dashboard) (route groups, private and dynamic folders are none). */
const pageFolders = readdirSync(pagesDir, { withFileTypes: true })
  .filter((e) => e.isDirectory() && !/^[(_[]/.test(e.name))
  .map((e) => `/${e.name}`)

describe('the dashboard route table (lib/dashboard/routes.ts)', () => {
  it('names every page folder under app/(dashboard), and each of its pages has one', () => {
    const hrefs = dashboardPages.map((p) => p.href)
    expect(pageFolders.length).toBeGreaterThan(0)
    expect(pageFolders.filter((f) => !hrefs.includes(f as never))).toEqual([])
    for (const href of hrefs) expect(existsSync(path.join(pagesDir, href, 'page.tsx')), `${href} has app/(dashboard)${href}/page.tsx`).toBe(true)
  })

  it('sends a browser without a session to sign in before every dashboard page and any page below one, returning there after', () => {
    for (const p of [...dashboardPages.map((x) => x.href), '/servers/notes', '/activity?type=tool.call']) {
      const res = proxy(new NextRequest(`http://127.0.0.1${p}`))
      expect(res.status, p).toBe(307)
      const to = new URL(res.headers.get('location')!)
      expect([to.pathname, to.searchParams.get('next')], p).toEqual(['/login', p])
    }
  })

  it('lets the sign-in page and paths that only start like a page through', () => {
    for (const p of ['/login', '/surfaces', '/settings-old']) {
      expect(isDashboardPath(p), p).toBe(false)
      expect(proxy(new NextRequest(`http://127.0.0.1${p}`)).headers.get('location'), p).toBeNull()
    }
  })
})
