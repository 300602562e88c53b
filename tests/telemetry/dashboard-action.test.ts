import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoState, eventually, signedIn, startDashboard, type Dashboard } from '@/tests/dashboard/harness'
import { startOtlpReceiver } from '@/tests/helpers/otlp-receiver'
import { waitFor } from '@/tests/upstream/harness'

// A dashboard action, clicked in a real browser, is a SERVER span named for the action it ran.
const SERVER_KIND = 2

describe('dashboard action spans', { timeout: 180_000 }, () => {
  let d: Dashboard
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>
  beforeAll(async () => {
    receiver = await startOtlpReceiver()
    d = await startDashboard(demoState(), { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_METRICS_EXPORTER: 'none', OTEL_BSP_SCHEDULE_DELAY: '200' })
  }, 180_000)
  afterAll(async () => {
    await d?.stop()
    await receiver?.close()
  })

  it('creating a token: "dashboard action createTokenAction", its outcome on it', async () => {
    const { context, page } = await signedIn(d)
    await page.goto('/tokens')
    await page.getByLabel('Name').first().fill('traced-token')
    await page.getByRole('button', { name: 'Create token' }).click()
    await eventually(() => page.getByText('traced-token').count()).toBeGreaterThan(0)
    const span = await waitFor('the action span', () => receiver.spans().find((s) => s.span.name === 'dashboard action createTokenAction'))
    expect(span.span.kind).toBe(SERVER_KIND)
    expect(span.attrs).toMatchObject({ 'toolgate.action': 'createTokenAction', 'http.request.method': 'POST', 'http.response.status_code': 200 })
    expect(span.attrs['toolgate.request_id']).toMatch(/^req_/)
    expect(span.attrs['error.type']).toBeUndefined()
    // a second token of the same name is refused: ok false, on the span as action_refused
    await page.getByLabel('Name').first().fill('traced-token')
    await page.getByRole('button', { name: 'Create token' }).click()
    const refused = await waitFor('the refused action span', () => receiver.spans().find((s) => s.span.name === 'dashboard action createTokenAction' && s.attrs['error.type'] === 'action_refused'))
    expect(refused.traceId).not.toBe(span.traceId)
    await context.close()
  })
})
