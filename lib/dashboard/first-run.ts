import 'server-only'
import type { Db } from '@/db/client'
import { tokens } from '@/db/queries/access'
import { serverStates } from '@/db/queries/servers'

export interface SetupStep { id: 'add' | 'release' | 'token' | 'connect'; label: string; href: string; done: boolean }

/**
 * The first-run checklist: what a new instance still needs before an agent can use it — a
 * server, released, a token, a client — or null once it has servers and tokens (an instance
 * in use has its Overview for that). Connecting a client is the last step and always shown as
 * to do: toolgate cannot tell which client holds a token.
 */
export function firstRun(db: Db): SetupStep[] | null {
  const servers = serverStates(db)
  const haveTokens = tokens(db).length > 0
  if (servers.length > 0 && haveTokens) return null
  const waiting = servers.find((s) => s.quarantined)
  return [
    { id: 'add', label: 'Add an MCP server, or import your client\'s mcpServers JSON', href: '/setup', done: servers.length > 0 },
    {
      id: 'release', label: 'Inspect it, review every tool, then release it', done: servers.some((s) => s.enabled && !s.quarantined),
      href: waiting ? `/servers/${encodeURIComponent(waiting.name)}#release` : '/servers',
    },
    { id: 'token', label: 'Create an agent token (agents without one get 401)', href: '/tokens', done: haveTokens },
    { id: 'connect', label: 'Connect a client: the snippets carry the token and this address', href: '/connect', done: false },
  ]
}
