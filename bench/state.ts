import type { StateFileInput } from '@/lib/schemas/state'

export const BENCH_AGENT = 'tg_at_bench_token_000000'

/**
 * The benchmark state: `servers` × `toolsPerServer` ready tools, with a sprinkling of every
 * gate so evaluations walk the whole precedence chain, plus a profile and an agent token.
 */
export function benchmarkState(servers = 1000, toolsPerServer = 20): StateFileInput {
  return {
    version: 1,
    servers: Array.from({ length: servers }, (_, s) => ({
      name: `srv${s}`,
      trust: s % 10 === 9 ? 'auto' : 'manual',
      disabled_tools: s % 7 === 0 ? ['tool19'] : [],
      // a transport, never connected (the bench runs no runtime), so that `ready` can be true
      transport: { url: `http://127.0.0.1:9/srv${s}` },
      connection: { state: s % 50 === 49 ? 'connecting' : 'ready' },
      tools: Array.from({ length: toolsPerServer }, (_, t) => ({
        name: `tool${t}`,
        description: `Tool ${t} of server ${s}: does one thing well.`,
        input_schema: { type: 'object', properties: { q: { type: 'string' }, n: { type: 'integer' } }, required: ['q'] },
        annotations: { readOnlyHint: t % 2 === 0, destructiveHint: t % 5 === 0, openWorldHint: false },
        ...(t === 18 ? { approval: { status: 'pending' as const } } : {}),
      })),
    })),
    profiles: [{ name: 'half', servers: Array.from({ length: servers / 2 }, (_, s) => `srv${s * 2}`) }],
    agent_tokens: [{ name: 'bench', token: BENCH_AGENT, allowed_servers: ['*'], profile_pin: null }],
  }
}

/** `n` ready ids spread over many servers. */
export function readyIds(n: number, offset = 0): string[] {
  return Array.from({ length: n }, (_, i) => `srv${(offset + i * 37) % 1000 === 49 ? 1 : (offset + i * 37) % 1000}:tool${(i * 3) % 17}`)
}
