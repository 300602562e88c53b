import { setServerState } from '@/lib/actions/servers'
import { restartAction } from '@/lib/actions/upstream'
import type { ServerStateRow } from '@/lib/catalog/servers'
import { canLogin, canRestart, connectionAdvice, type ServerFacts } from '@/lib/dashboard/fixes'
import { ActionButton } from '@/components/action-button'
import { LinkButton } from '@/components/ui'
import { LoginButton } from './login-button'

const detail = (name: string, anchor = '') => `/servers/${encodeURIComponent(name)}${anchor}`

/**
 * The one action a server's state calls for, admin state first (it gates everything else) —
 * the button itself, not a link to a page without it, and only when it can work for this server.
 */
export function ServerAction({ s, facts }: { s: ServerStateRow; facts: ServerFacts }) {
  if (s.quarantined) return <LinkButton variant="primary" href={detail(s.name, '#release')} aria-label={`Review & release ${s.name}`}>Review &amp; release</LinkButton>
  if (s.restartPending) return <Pending text="Reconnecting… (restart asked; this row updates when the runtime reports)" />
  if (!s.enabled) return <ActionButton variant="primary" action={setServerState} permission="operate" input={{ server: s.name, change: 'enable' as const }} label="Enable" name={`Enable ${s.name}`} />
  if (s.health === 'login_needed' || (s.health === 'unhealthy' && s.connection?.action === 'login')) {
    return canLogin(facts) ? <LoginButton server={s.name} ariaLabel={`Log in to ${s.name}`} /> : <Advice text={connectionAdvice(s.name, facts)} />
  }
  if (s.health !== 'ready') {
    if (!canRestart(facts)) return <Advice text={connectionAdvice(s.name, facts)} />
    // not connected yet, or the runtime diagnosed a restart: ask it to reconnect; otherwise its log says why
    return s.connection?.action === 'restart' || s.health !== 'unhealthy'
      ? <ActionButton variant="primary" action={restartAction} permission="operate" input={{ server: s.name }} label="Restart" name={`Restart ${s.name}`} />
      : <LinkButton variant="primary" href={detail(s.name, '#logs')} aria-label={`View logs of ${s.name}`}>View logs</LinkButton>
  }
  return <ActionButton action={setServerState} permission="operate" input={{ server: s.name, change: 'disable' as const }} label="Disable" name={`Disable ${s.name}`} confirm={`Disable ${s.name}? Its tools stop being served at once.`} />
}

/** An action asked for and not landed yet: said so, never a bare "Done" beside the old state. */
export function Pending({ text }: { text: string }) {
  return <p role="status" data-testid="pending-action" className="max-w-sm text-xs font-medium text-amber-800 dark:text-amber-300">{text}</p>
}

function Advice({ text }: { text: string }) {
  return <p className="max-w-sm text-xs text-slate-700 dark:text-slate-200">{text}</p>
}
