import type { Db } from '@/db/client'
import { cliActor, parseDuration, UsageError } from '@/lib/cli/args'
import { preflightTable, toJson } from '@/lib/cli/output'
import { command, EXIT_ERROR } from '@/lib/cli/spec'
import { HASH_SCHEMA_VERSION } from '@/lib/preflight/hash'
import type { PreflightData } from '@/lib/gate/check'
import { exitCodes } from '@/lib/preflight/taxonomy'
import type { PreflightBody } from '@/lib/schemas/preflight'
import type { Policy } from '@/lib/core/state'
import type { Caller, EvaluationInput } from '@/lib/preflight/evaluate'
import { unauthorized } from '@/lib/core/errors'
import type { InBandFlags } from './preflight-in-band'
import { envVar } from '@/lib/core/config'

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

const PIN = `sha256/v${HASH_SCHEMA_VERSION}:<hex>`

export const preflightCommand = command({
  name: 'tools preflight',
  summary: 'check whether tools are ready; exit 0 ready, 10 retryable, 11 blocked, 12 unknown ids',
  details: 'Direct on the database at the operator tier by default; with --token at that agent token\'s tier and scope; with --url over REST from a running server; with --in-band over MCP, at --url <base>/mcp, else at the URL the toolgate running on the database (--db) recorded, plus /mcp (no --profile, --pin, --wait or --api-key there; at most 50 ids). The table ends with the verdict, its exit code and the request id.',
  args: [{ name: '<server:tool>', what: 'tool id (<server>:<tool>)', variadic: true, complete: 'tool' }],
  flags: {
    profile: { type: 'string', value: 'P', description: 'check as agents in this profile see it (its server scope)', complete: 'profile' },
    pin: { type: 'string', multiple: true, value: `<id>=${PIN}`, description: 'the pin the job expects for that id (tools list prints pins); a changed definition is hash_mismatch' },
    'read-only-only': { type: 'boolean', description: 'only tools annotated read-only are ready' },
    'exclude-destructive': { type: 'boolean', description: 'tools annotated destructive are not ready' },
    'exclude-open-world': { type: 'boolean', description: 'tools annotated open-world are not ready' },
    wait: { type: 'string', value: 'DURATION', default: '0, answer at once', description: 'wait up to this long (at most 10s) for retryable tools: 500ms, 2s' },
    token: { type: 'string', value: 'TOKEN', default: 'the operator tier; $TOOLGATE_AGENT_TOKEN with --in-band', description: 'check at this agent token\'s tier and scope' },
    url: { type: 'string', value: 'URL', description: 'ask a running server: its base URL (REST), or its /mcp endpoint with --in-band (default there: the running server\'s URL + /mcp)' },
    'api-key': { type: 'string', value: 'KEY', default: '$TOOLGATE_API_KEY', description: 'the operator key, for --url at the operator tier' },
    'in-band': { type: 'boolean', description: 'ask over MCP with the Shape A rider (at --url <base>/mcp, else the running server\'s)' },
  },
  examples: [
    ['toolgate tools preflight notes:read_note notes:export_notes', 'check two tools on the database'],
    [`toolgate tools preflight notes:read_note --pin notes:read_note=${PIN} -o json`, 'fail (exit 11) if the definition changed since it was pinned'],
    ['toolgate tools preflight search:web_search --url http://127.0.0.1:3000 --wait 2s', 'ask a running server, waiting up to 2 s for a retryable tool'],
  ],
  exits: { 0: 'every tool is ready', 10: 'verdict degraded_retryable: waiting may help', 11: 'verdict blocked', 12: 'verdict unknown_ids', 1: EXIT_ERROR },
  run: async ({ values, args, json, db }) => (values['in-band'] ? (await import('./preflight-in-band')).preflightInBand(values, args, json) : outOfBand(values, args, json, db)),
})

/** Direct on the database, or over REST with --url. */
async function outOfBand(values: InBandFlags, positionals: string[], json: boolean, db: () => Db): Promise<number> {
  const { MAX_WAIT_MS, parsePreflightBody } = await import('@/lib/schemas/preflight')
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
    ? await overRest(values.url, body, values.token, values['api-key'] ?? envVar('TOOLGATE_API_KEY'))
    : await direct(db(), input, waitMs, values.token)
  console.log(json ? toJson(data) : preflightTable(data))
  return exitCodes[data.verdict]
}

/** Direct on the database file: operator tier, or the tier and scope of --token. */
async function direct(db: Db, input: EvaluationInput, waitMs: number | undefined, token: string | undefined): Promise<PreflightData> {
  const [{ agentCaller }, { runCheck }, { mintRequestId }] = await Promise.all([import('@/lib/auth/caller'), import('@/lib/gate/check'), import('@/lib/activity/request-id')])
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
  const fault = `server answered ${res.status}: ${json?.error ?? res.statusText}`
  // a refused credential is the credentials' fault, whichever flag (or $TOOLGATE_API_KEY) sent it
  if (res.status === 401) throw unauthorized(fault)
  if (!res.ok || !json?.success || !json.data) throw new Error(fault)
  return json.data
}
