import { setServerState } from '@/lib/actions/servers'
import type { ServerRow } from '@/lib/catalog/servers'
import { ActionButton } from '@/components/action-button'
import { LinkButton } from '@/components/ui'

const detail = (name: string, anchor = '') => `/servers/${encodeURIComponent(name)}${anchor}`

/** The one action a server's state calls for, admin state first (it gates everything else). */
export function ServerAction({ s }: { s: ServerRow }) {
  if (s.quarantined) return <LinkButton variant="primary" href={detail(s.name, '#release')}>Review &amp; release</LinkButton>
  if (!s.enabled) return <ActionButton variant="primary" action={setServerState} input={{ server: s.name, change: 'enable' as const }} label="Enable" />
  if (s.health === 'login_needed') return <LinkButton variant="primary" href={detail(s.name, '#connection')}>Log in</LinkButton>
  if (s.health === 'unhealthy') return <LinkButton variant="primary" href={detail(s.name, '#connection')}>{s.connection?.action === 'restart' ? 'Restart' : 'View logs'}</LinkButton>
  return <ActionButton action={setServerState} input={{ server: s.name, change: 'disable' as const }} label="Disable" confirm={`Disable ${s.name}? Its tools stop being served at once.`} />
}
