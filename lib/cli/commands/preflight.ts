import { openCliDb, outputFormat, parse, parseDuration, UsageError, cliActor } from '@/lib/cli/args'
import { preflightTable } from '@/lib/cli/output'
import { agentCaller } from '@/lib/auth/caller'
import { mintRequestId } from '@/lib/activity/request-id'
import { runCheck, type PreflightData } from '@/lib/preflight/service'
import { exitCodes } from '@/lib/preflight/taxonomy'
import { MAX_WAIT_MS, parsePreflightBody, type PreflightBody } from '@/lib/preflight/schemas'
import type { Caller, EvaluationInput, Policy } from '@/lib/preflight/evaluate'
import { unauthorized } from '@/lib/errors'
import { preflightInBand } from './preflight-in-band'

/** --pin <id>=<pin>, each naming a requested id. */
function parsePins(pins: string[], ids: string[]): { id: string; pin_hash?: string }[] {
  const requested = new Set(ids.map((i) => i.trim()))
  const byId = new Map<string, string>()
  for (const p of pins) {
    const at = p.indexOf('=')
    if (at < 0) throw new UsageError(`--pin must be <id>=sha256/v<N>:<hex>, not "${p}"`)
    const id = p.slice(0, at).trim()
    if (!requested.has(id)) throw new UsageError(`--pin names "${id}", which is not a requested id`)
    if (byId.has(id) && byId.get(id) !== p.slice(at + 1)) throw new UsageError(`conflicting --pin values for "${id}"`)
    byId.set(id, p.slice(at + 1))
  }
  return ids.map((id) => (byId.has(id.trim()) ? { id, pin_hash: byId.get(id.trim()) } : { id }))
}

export async function preflightCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    profile: { type: 'string' },
    pin: { type: 'string', multiple: true },
    'read-only-only': { type: 'boolean' },
    'exclude-destructive': { type: 'boolean' },
    'exclude-open-world': { type: 'boolean' },
    wait: { type: 'string' },
    token: { type: 'string' },
    url: { type: 'string' },
    'api-key': { type: 'string' },
    'in-band': { type: 'boolean' },
  })
  if (values['in-band']) return preflightInBand(values, positionals)
  const format = outputFormat(values.output)
  if (positionals.length === 0) throw new UsageError('give at least one tool id (<server>:<tool>)')
  const tools = parsePins(values.pin ?? [], positionals)
  const policy: Policy = {
    ...(values['read-only-only'] ? { read_only_only: true } : {}),
    ...(values['exclude-destructive'] ? { exclude_destructive: true } : {}),
    ...(values['exclude-open-world'] ? { exclude_open_world: true } : {}),
  }
  const body: PreflightBody = {
    tools,
    ...(values.profile !== undefined ? { profile: values.profile } : {}),
    ...(Object.keys(policy).length ? { policy } : {}),
    ...(values.wait !== undefined ? { wait_ms: parseDuration('--wait', values.wait, MAX_WAIT_MS) } : {}),
  }

  // the REST body's own rules (caps, bounds, pins, wait): a fault is exit 1 before anything is asked
  const { input, waitMs } = parsePreflightBody(body)
  const data = values.url
    ? await overRest(values.url, body, values.token, values['api-key'] ?? process.env.TOOLGATE_API_KEY)
    : await direct(values.db, input, waitMs, values.token)
  console.log(format === 'json' ? JSON.stringify(data, null, 2) : preflightTable(data))
  return exitCodes[data.verdict]
}

/** Direct on the database file: operator tier, or the tier and scope of --token. */
async function direct(dbFile: string | undefined, input: EvaluationInput, waitMs: number | undefined, token: string | undefined): Promise<PreflightData> {
  const db = openCliDb(dbFile)
  let caller: Caller = { tier: 'operator', name: cliActor() }
  if (token !== undefined) {
    const agent = agentCaller(db, token)
    if (!agent) throw unauthorized('invalid agent token (--token)')
    caller = agent
  }
  return runCheck(db, { caller, surface: 'cli', requestId: mintRequestId(), input, waitMs })
}

/** Ask a running server over REST. */
async function overRest(base: string, body: PreflightBody, token: string | undefined, apiKey: string | undefined): Promise<PreflightData> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  else if (apiKey) headers['x-api-key'] = apiKey
  else throw new UsageError('--url needs credentials: --token <agent token>, or --api-key / TOOLGATE_API_KEY for the operator tier')
  const res = await fetch(new URL('/api/v1/preflight', base), { method: 'POST', headers, body: JSON.stringify(body) })
  const json = (await res.json().catch(() => null)) as { success?: boolean; data?: PreflightData; error?: string } | null
  if (!res.ok || !json?.success || !json.data) throw new Error(`server answered ${res.status}: ${json?.error ?? res.statusText}`)
  return json.data
}
