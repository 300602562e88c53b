import { context } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { writeJsonLogs } from '@/lib/core/log'
import { currentRequestId, currentTraceIds, requestContext } from '@/lib/telemetry/context'

// TOOLGATE_LOG_FORMAT=json: every console line one JSON object, with the request's id (and the
// trace's ids) from the context it was written in. The console is switched once, in this process.
describe('JSON log lines', () => {
  const written: string[] = []
  const original = { ...console }
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
    for (const m of ['error', 'warn', 'info', 'log', 'debug'] as const) console[m] = vi.fn((line: string) => void written.push(line))
    writeJsonLogs(() => ({ request_id: currentRequestId(), ...currentTraceIds() }))
  })
  afterAll(() => {
    Object.assign(console, original)
    context.disable()
  })

  it('one object a line, with level, message and the request id of the request it was written in', async () => {
    await context.with(requestContext(context.active(), 'req_0123456789ABCDEFGHJKMNPQRS', undefined), async () => {
      await new Promise((r) => setImmediate(r)) // still that request's, after an await
      console.error('toolgate: request %s failed', 'x')
    })
    console.warn('outside any request')
    const [inside, outside] = written.slice(-2).map((l) => JSON.parse(l))
    expect(inside).toMatchObject({ level: 'error', msg: 'toolgate: request x failed', request_id: 'req_0123456789ABCDEFGHJKMNPQRS' })
    expect(new Date(inside.time).toISOString()).toBe(inside.time)
    expect(outside).toMatchObject({ level: 'warn', msg: 'outside any request' })
    expect(outside.request_id).toBeUndefined()
  })

  it('a forged line stays one line: control characters escaped, the length bounded', () => {
    console.error('ok\n{"level":"info","msg":"forged"}\u2028\u001b[2J')
    const line = written.at(-1)!
    expect(line.split('\n')).toHaveLength(1)
    expect(line).not.toMatch(/[\u2028\u2029\u001b]/)
    expect(JSON.parse(line).msg).toBe('ok\\n{"level":"info","msg":"forged"}\\u2028\\u001b[2J')
    console.error('x'.repeat(20_000))
    expect(JSON.parse(written.at(-1)!).msg.length).toBeLessThan(8_100)
  })
})
