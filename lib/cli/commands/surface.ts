import { UsageError } from '@/lib/cli/args'
import { forTerminal, table, toJson } from '@/lib/cli/output'
import { command, EXIT_ERROR, type Command } from '@/lib/cli/spec'
import { DEFAULT_PAIR_THRESHOLD } from '@/lib/surface/overlap'
import type { SurfaceScope } from '@/lib/surface/report'
import { ENCODING } from '@/lib/surface/tokens'

function scopeOf(values: { profile?: string; token?: string }): SurfaceScope {
  if (values.profile !== undefined && values.token !== undefined) throw new UsageError('--profile and --token name different scopes: give one of them')
  if (values.profile !== undefined) return { kind: 'profile', name: values.profile }
  if (values.token !== undefined) return { kind: 'token', name: values.token }
  return { kind: 'catalog' }
}

function threshold(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PAIR_THRESHOLD
  const n = Number(raw)
  if (!/^\d*\.?\d+$/.test(raw) || n > 1) throw new UsageError(`--threshold must be a number from 0 to 1, not "${raw}"`)
  return n
}

export const surfaceCommands: Command[] = [
  command({
    name: 'surface report',
    summary: "what a scope's tools/list costs in tokens, and which of its tools read alike",
    details: `Lists exactly what /mcp serves the scope (the whole catalog by default, a profile, or one agent token), counts the tokens of one full tools/list (${ENCODING}, the GPT-4o tokenizer; toolgate's describe_tool included) and of each tool, and scores every pair of tools by description overlap (TF-IDF cosine over name, title and description; 1 = identical wording). Pairs across servers are flagged: a tool that reads like another server's is how a shadowing server hides. JSON fields: scope, encoding, tools, list_tokens, max_overlap {a, b, score, cross_server}, pairs [{a, b, score, cross_server}], heaviest [{id, tokens}], servers [{name, tools, tokens}], catalog [{id, tokens, description}].`,
    args: [],
    flags: {
      profile: { type: 'string', value: 'P', default: 'the whole catalog', description: 'report what an agent in profile P is served', complete: 'profile' },
      token: { type: 'string', value: 'NAME', default: 'the whole catalog', description: 'report what agent token NAME is served (its allowed servers and profile pin)', complete: 'token' },
      threshold: { type: 'string', value: '0..1', default: String(DEFAULT_PAIR_THRESHOLD), description: 'list every pair scoring at least this' },
      top: { type: 'string', value: 'N', default: '10', description: 'how many of the heaviest tools to list' },
    },
    examples: [
      ['toolgate surface report', 'the whole served catalog: tokens per tools/list and the closest pairs'],
      ['toolgate surface report --token nightly', 'what the nightly agent is served'],
      ["toolgate surface report --profile ops -o json | jq '.list_tokens, .max_overlap'", 'the figures a CI gate reads'],
    ],
    exits: { 0: 'reported', 1: EXIT_ERROR },
    run: async ({ values, json, db }) => {
      const { scopeLabel, surfaceReport } = await import('@/lib/surface/report')
      const top = values.top === undefined ? 10 : Number(values.top)
      if (!Number.isInteger(top) || top < 0) throw new UsageError(`--top must be a whole number, not "${values.top}"`)
      const r = surfaceReport(db(), scopeOf(values), { threshold: threshold(values.threshold), top })
      if (json) {
        console.log(toJson(r))
        return 0
      }
      const m = r.max_overlap
      console.log([
        `${scopeLabel(r.scope)}: ${r.tools} tools, ${r.list_tokens} tokens per tools/list (${r.encoding})`,
        `closest pair: ${m ? `${forTerminal(m.a)} ~ ${forTerminal(m.b)}  ${m.score}${m.cross_server ? '  (across servers)' : ''}` : 'none (fewer than two tools)'}`,
        '',
        `Pairs at or above ${threshold(values.threshold)}:`,
        r.pairs.length ? table(['SCORE', 'ACROSS SERVERS', 'A', 'B'], r.pairs.map((p) => [p.score.toFixed(4), p.cross_server ? 'yes' : 'no', p.a, p.b])) : '  none',
        '',
        'Heaviest tools:',
        r.heaviest.length ? table(['TOKENS', 'TOOL'], r.heaviest.map((h) => [String(h.tokens), h.id])) : '  none',
      ].join('\n'))
      return 0
    },
  }),
]
