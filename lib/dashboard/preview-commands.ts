import type { PreflightForm } from '@/lib/schemas/dashboard'
import type { Exchange } from './preview'

/** The token stands in as a shell variable: the dashboard never holds an agent token's secret. */
export const TOKEN_VAR = 'TOOLGATE_AGENT_TOKEN'

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
const tokenNote = (token: string | null) => (token === null ? '' : `# first: export ${TOKEN_VAR}=<the secret of agent token "${token}">\n`)

/** One previewed exchange as a curl command a terminal can run against this toolgate. */
export function curlFor(origin: string, x: Exchange, token: string | null): string {
  const headers = Object.entries(x.headers).filter(([k]) => k !== 'authorization').map(([k, v]) => `  -H ${quote(`${k}: ${v}`)}`)
  if (token !== null) headers.push(`  -H "Authorization: Bearer $${TOKEN_VAR}"`)
  return tokenNote(token) + [`curl -sS ${quote(origin + x.endpoint)}`, ...headers, `  --data-raw ${quote(x.request)}`].join(' \\\n')
}

/**
 * The same check in band from the CLI (Shape A over MCP; the token comes from the environment).
 * The ids come after `--`, quoted: one that starts with "--" (a shared link can carry any id)
 * stays an id instead of becoming a flag such as --url.
 */
export function cliFor(origin: string, form: Pick<PreflightForm, 'ids' | 'token' | 'profile' | 'policy'>): string {
  const endpoint = form.profile === null ? '/mcp' : `/mcp/p/${encodeURIComponent(form.profile)}`
  const flags = Object.entries(form.policy).filter(([, on]) => on).map(([k]) => `--${k.replace(/_/g, '-')}`)
  const ids = form.ids.map((id) => quote(id.trim())).filter((id) => id !== "''")
  return tokenNote(form.token) + [`npx toolgate tools preflight --in-band --url ${quote(origin + endpoint)}`, ...flags, '-o json', '--', ...ids].join(' ')
}
