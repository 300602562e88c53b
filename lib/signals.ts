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

/**
 * `f`, with the signal each request is given followed by one of the request's own, released once
 * its response is over (its body read to the end, failed or cancelled). An MCP client transport
 * gives every request the same long-lived signal, and undici keeps a listener on the signal a
 * request was given until that Request is garbage-collected: thousands of requests piled
 * thousands of listeners on one signal (MaxListenersExceededWarning, one warning a request past
 * 1,500). A redirect answers as it is (its url and type are what a caller reads of it).
 */
export function releasingFetch(f: typeof fetch): typeof fetch {
  return async (input, init) => {
    if (!init?.signal) return f(input, init)
    const { controller, release } = following(init.signal)
    let response: Response
    try {
      response = await f(input, { ...init, signal: controller.signal })
    } catch (e) {
      release()
      throw e
    }
    if (!response.body || response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
      release()
      return response
    }
    const reader = response.body.getReader()
    const body = new ReadableStream<Uint8Array>({
      async pull(into) {
        try {
          const { done, value } = await reader.read()
          if (!done) return into.enqueue(value)
          release()
          into.close()
        } catch (e) {
          release()
          into.error(e)
        }
      },
      cancel(reason) {
        release()
        return reader.cancel(reason)
      },
    })
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
  }
}

/** Sleep, waking early when `signal` aborts; the abort listener never outlives the sleep. */
export const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  const wake = () => { clearTimeout(t); signal.removeEventListener('abort', wake); resolve() }
  const t = setTimeout(wake, ms)
  signal.addEventListener('abort', wake, { once: true })
})
