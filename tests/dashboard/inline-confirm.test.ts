import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Locator, Page } from 'playwright-core'
import { tokenByName } from '@/db/queries/access'
import { listActivity } from '@/db/queries/activity'
import { eventually, seriousViolations, signedIn, startDashboard, visit, type Dashboard } from './harness'

let d: Dashboard
beforeAll(async () => { d = await startDashboard() })
afterAll(async () => { await d?.stop() })

const focused = (l: Locator) => l.evaluate((el) => el === document.activeElement)
/** Every server-action call the page makes from now on. */
function actionCalls(page: Page): string[] {
  const seen: string[] = []
  page.on('request', (r) => { if (r.method() === 'POST' && r.headers()['next-action'] !== undefined) seen.push(r.url()) })
  return seen
}
const revoked = (name: string) => listActivity(d.db, { type: 'token.revoked' }).filter((r) => r.type === 'token.revoked' && r.data.target === name)

describe('a drastic action asks first, inline (no browser confirm())', () => {
  it('the question replaces the button; Cancel sends nothing and gives focus back; confirming revokes', async () => {
    const { page, context } = await signedIn(d)
    // a native dialog would fail the test rather than be dismissed silently
    const dialogs: string[] = []
    page.on('dialog', (dlg) => { dialogs.push(dlg.message()); void dlg.dismiss() })
    await visit(page, '/tokens')
    const calls = actionCalls(page)
    const row = page.getByTestId('token-nightly')
    const button = row.getByRole('button', { name: 'Revoke token nightly', exact: true })
    const look = await button.getAttribute('class')
    await button.click()

    const ask = row.getByRole('alertdialog', { name: 'Confirm: Revoke token nightly' })
    expect(await ask.getByRole('alert').textContent()).toBe('Revoke nightly? Agents using it are refused at once.')
    // the two choices, the confirming one keeping the button's words and colour, and focused
    expect(await ask.getByRole('button').allTextContents()).toEqual(['Revoke', 'Cancel'])
    const yes = ask.getByRole('button', { name: 'Revoke token nightly', exact: true })
    expect(await yes.getAttribute('class')).toBe(look)
    expect(await focused(yes)).toBe(true)
    expect(await seriousViolations(page)).toEqual([])

    await ask.getByRole('button', { name: 'Cancel' }).click()
    expect(await ask.count()).toBe(0)
    expect(await focused(button)).toBe(true)
    expect(tokenByName(d.db, 'nightly')).toBeDefined()

    await button.click()
    await ask.getByRole('button', { name: 'Revoke token nightly', exact: true }).click()
    await eventually(() => row.count()).toBe(0)
    expect(tokenByName(d.db, 'nightly')).toBeUndefined()
    // exactly one call and one record: the confirmed one (the cancelled question sent nothing)
    expect(calls).toHaveLength(1)
    expect(revoked('nightly')).toHaveLength(1)
    expect(dialogs).toEqual([])
    await context.close()
  })

  it('keyboard only: Enter asks, Escape and Cancel give focus back, Enter on the confirming button revokes', async () => {
    const { page, context } = await signedIn(d)
    await visit(page, '/tokens')
    const calls = actionCalls(page)
    const row = page.getByTestId('token-notes-bot')
    const button = row.getByRole('button', { name: 'Revoke token notes-bot', exact: true })
    const ask = row.getByRole('alertdialog', { name: 'Confirm: Revoke token notes-bot' })
    const yes = ask.getByRole('button', { name: 'Revoke token notes-bot', exact: true })
    const cancel = ask.getByRole('button', { name: 'Cancel' })
    await button.focus()

    await page.keyboard.press('Enter')
    await ask.waitFor()
    expect(await focused(yes)).toBe(true)
    await page.keyboard.press('Escape')
    expect(await ask.count()).toBe(0)
    expect(await focused(button)).toBe(true)

    // Tab reaches Cancel; Enter on it is a cancel too
    await page.keyboard.press('Enter')
    await ask.waitFor()
    await page.keyboard.press('Tab')
    expect(await focused(cancel)).toBe(true)
    await page.keyboard.press('Enter')
    expect(await ask.count()).toBe(0)
    expect(await focused(button)).toBe(true)
    expect(calls).toEqual([])
    expect(revoked('notes-bot')).toEqual([])

    // back from Cancel to the confirming button, and Enter
    await page.keyboard.press('Enter')
    await ask.waitFor()
    await page.keyboard.press('Tab')
    await page.keyboard.press('Shift+Tab')
    expect(await focused(yes)).toBe(true)
    await page.keyboard.press('Enter')
    await eventually(() => row.count()).toBe(0)
    expect(calls).toHaveLength(1)
    expect(revoked('notes-bot')).toHaveLength(1)
    expect(tokenByName(d.db, 'notes-bot')).toBeUndefined()
    await context.close()
  })
})
