import { cliActor, one, openCliDb, parse, UsageError } from '../args'
import { disableServer, enableServer, quarantineServer, unquarantineServer } from '../../admin/servers'

const mutations = { enable: enableServer, disable: disableServer, quarantine: quarantineServer, unquarantine: unquarantineServer }

export function upstreamCommand(sub: string | undefined, argv: string[]): number {
  if (sub === 'enable' || sub === 'disable' || sub === 'quarantine' || sub === 'unquarantine') {
    const { values, positionals } = parse(argv, {})
    const r = mutations[sub](openCliDb(values.db), one(positionals, 'server name'), { actor: cliActor() })
    const fmt = (s: typeof r.before) => `${s.enabled ? 'enabled' : 'disabled'}${s.quarantined ? ', quarantined' : ''}`
    console.log(`${r.name}: ${fmt(r.before)} → ${fmt(r.after)}  (activity ${r.activityId}, request_id ${r.requestId})`)
    return 0
  }
  throw new UsageError('usage: toolgate upstream enable|disable|quarantine|unquarantine <server>')
}
