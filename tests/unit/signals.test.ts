import { expect, it } from 'vitest'
import { following } from '@/lib/signals'

it('aborts when any parent aborts, with that parent\'s reason', () => {
  const [a, b] = [new AbortController(), new AbortController()]
  const { controller } = following(a.signal, undefined, b.signal)
  expect(controller.signal.aborted).toBe(false)
  b.abort('gone')
  expect(controller.signal.aborted).toBe(true)
  expect(controller.signal.reason).toBe('gone')
  a.abort('later') // a second parent changes nothing
  expect(controller.signal.reason).toBe('gone')
})

it('starts aborted when a parent already is, and can be aborted on its own', () => {
  const a = new AbortController()
  a.abort('before')
  expect(following(a.signal).controller.signal.reason).toBe('before')
  const own = following(new AbortController().signal).controller
  own.abort()
  expect(own.signal.aborted).toBe(true)
})

it('stops following once released: a parent aborting later leaves it alone', () => {
  const a = new AbortController()
  const { controller, release } = following(a.signal)
  release()
  a.abort()
  expect(controller.signal.aborted).toBe(false)
})
