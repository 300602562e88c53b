import 'server-only'
import { LOG_LEVELS as LEVELS, setLevelParamsSchema as setLevelParams, type LogLevel } from '@/lib/schemas/mcp'
import { runningSupervisor } from '@/lib/upstream/supervisor'

/**
 * The log level each 2025-11-25 caller set with logging/setLevel. The endpoint is stateless, so
 * the level is kept per caller (agent token, by its id), the nearest thing to the session it names; upstream
 * log messages forwarded during that caller's calls below it are not sent. The caller's own
 * upstream sessions are told the level too (a server shared by every agent is not: see
 * Supervisor.setLogLevel). (2026-07-28 carries the level in each request instead, which the SDK applies.)
 */
const levels = new Map<string, LogLevel>()

/** logging/setLevel: undefined once the level is set (and its caller's upstream sessions told), or the reason it is not a level. */
export async function setLogLevel(caller: string, params: unknown): Promise<string | undefined> {
  const p = setLevelParams.safeParse(params)
  if (!p.success) return `Invalid params: level must be one of ${LEVELS.join(', ')}`
  levels.set(caller, p.data.level)
  await runningSupervisor()?.setLogLevel(caller, p.data.level)
  return undefined
}

/** caller: its key (callerKey); an anonymous caller has no level kept for it. */
export function belowLogLevel(caller: string | undefined, level: string): boolean {
  const set = caller === undefined ? undefined : levels.get(caller)
  return set !== undefined && LEVELS.indexOf(level as LogLevel) < LEVELS.indexOf(set)
}
