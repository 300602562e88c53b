/**
 * An AbortController that aborts when any of `parents` does, and `release` to stop following
 * them once the work is over. AbortSignal.any does the same, but it costs tens of microseconds
 * and weak references per signal: on a call's hot path the links are plain listeners, removed
 * when the call ends.
 */
export function following(...parents: (AbortSignal | undefined)[]): { controller: AbortController; release: () => void } {
  const controller = new AbortController()
  const followed: AbortSignal[] = []
  const abort = (e: Event) => controller.abort((e.target as AbortSignal).reason)
  for (const parent of parents) {
    if (!parent) continue
    if (parent.aborted) {
      controller.abort(parent.reason)
      break
    }
    parent.addEventListener('abort', abort, { once: true })
    followed.push(parent)
  }
  return { controller, release: () => { for (const parent of followed) parent.removeEventListener('abort', abort) } }
}
