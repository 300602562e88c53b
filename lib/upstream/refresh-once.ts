/**
 * One refresh per refresh token. Requests that meet an expired token together each ask to refresh
 * it with the same refresh token; an authorization server that rotates refresh tokens (OAuth 2.1)
 * answers the first and refuses the others (invalid_grant), and the SDK then discards the tokens
 * the first one just got: the server would ask for a login it does not need. Asks for the same
 * refresh token made while the first is under way, or shortly after, share its answer instead.
 */
const SHARED_MS = 10_000

type Answer = { status: number; statusText: string; headers: [string, string][]; body: string }
const answers = new Map<string, Promise<Answer>>()

export function refreshOnce(fetchFn: typeof fetch): typeof fetch {
  return async (input, init) => {
    const key = refreshKey(input, init)
    if (!key) return fetchFn(input, init)
    let answer = answers.get(key)
    if (!answer) {
      answer = fetchFn(input, init).then(async (r) => ({
        status: r.status, statusText: r.statusText, body: await r.text(),
        // the body is read (and decoded) here: what described its encoding no longer applies
        headers: [...r.headers].filter(([name]) => name !== 'content-encoding' && name !== 'content-length'),
      }))
      answers.set(key, answer)
      // a request that never got an answer is not shared: the next ask tries again
      answer.then(() => setTimeout(() => answers.delete(key), SHARED_MS).unref(), () => answers.delete(key))
    }
    const a = await answer
    return new Response(a.body, { status: a.status, statusText: a.statusText, headers: a.headers })
  }
}

/** The token endpoint and refresh token of a refresh_token grant, or undefined for any other request. */
function refreshKey(input: Parameters<typeof fetch>[0], init: RequestInit | undefined): string | undefined {
  if (init?.method !== 'POST' || !(init.body instanceof URLSearchParams) || init.body.get('grant_type') !== 'refresh_token') return undefined
  const token = init.body.get('refresh_token')
  return token ? `${input instanceof Request ? input.url : String(input)} ${token}` : undefined
}
