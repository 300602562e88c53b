/**
 * Runs once when the toolgate server boots: start the upstream runtime's supervisor.
 * TOOLGATE_RUNTIME=off leaves upstreams alone (states then come only from state files).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs' || process.env.TOOLGATE_RUNTIME === 'off') return
  if (process.env.NEXT_PHASE === 'phase-production-build') return
  const { serverDb } = await import('./lib/http/server-db')
  const { startSupervisor } = await import('./lib/upstream/supervisor')
  const supervisor = startSupervisor(serverDb())
  // Next exits on these after its own cleanup; ours is synchronous, so it finishes first
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => supervisor.shutdown())
}
