import { UsageError } from './args'
import { ToolgateError } from '@/lib/errors'
import { preflightCommand } from './commands/preflight'
import { toolsCommand } from './commands/tools'
import { upstreamCommand } from './commands/upstream'
import { activityCommand } from './commands/activity'
import { stateCommand } from './commands/state'
import { operatorKeyCommand, serveCommand } from './commands/serve'
import { settingsCommand } from './commands/settings'
import { callsCommand } from './commands/calls'

const HELP = `toolgate — is every tool this job needs ready, and if not, why and what fixes it?

  toolgate serve [--port 3000] [--host 127.0.0.1]     start the server (what npm start runs)
  toolgate tools preflight <server:tool>... [flags]   check tools; exit 0 ready, 10 retryable, 11 blocked, 12 unknown ids
      --profile P  --pin <id>=sha256/v1:<hex>  --read-only-only  --exclude-destructive
      --exclude-open-world  --wait 2s  --token <agent token>  --url <base> [--api-key K]  -o table|json
      --in-band --url <base>/mcp [--token T]: ask over MCP with the Shape A rider
  toolgate tools list [--server S] [-o json]          every known tool with status and pin
  toolgate tools show <server:tool> [-o json]         the full definition, pin, diff, review findings, history
  toolgate tools approve <server:tool> [--hash PIN] | block <server:tool> | enable <server:tool> [--yes]
  toolgate tools call-approval <server:tool> on|off   hold every call of a tool for an operator's approval
  toolgate calls list [--status S] | calls approve <id> | calls deny <id> [--reason R]
  toolgate upstream list|add|import|remove|enable|disable|quarantine|inspect|unquarantine|restart|set-secret|login|logs ...
  toolgate activity list [--request-id ID] [--type T] [--limit N] [-o json]
  toolgate activity show <id>
  toolgate activity prune [--before DATE]           delete old records (default: by activity_retention_days)
  toolgate settings list | settings set <name> <value>
  toolgate state load <file> | state dump
  toolgate operator-key rotate

  Every command takes --db <file> (default: $TOOLGATE_DB, else ./data/toolgate.db).`

async function main(argv: string[]): Promise<number> {
  const [group, sub, ...rest] = argv
  switch (group) {
    case 'tools':
      return sub === 'preflight' ? preflightCommand(rest) : toolsCommand(sub, rest)
    case 'upstream': return upstreamCommand(sub, rest)
    case 'activity': return activityCommand(sub, rest)
    case 'state': return stateCommand(sub, rest)
    case 'settings': return settingsCommand(sub, rest)
    case 'calls': return callsCommand(sub, rest)
    case 'serve': return serveCommand(argv.slice(1))
    case 'operator-key': return operatorKeyCommand(sub, rest)
    case undefined: case 'help': case '--help': case '-h':
      console.log(HELP)
      return group === undefined ? 1 : 0
    default:
      throw new UsageError(`unknown command "${group}"\n\n${HELP}`)
  }
}

// Any failure that is not a verdict exits 1, with the reason on stderr.
main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code },
  (e: unknown) => {
    const msg = e instanceof UsageError || e instanceof ToolgateError || e instanceof Error ? e.message : String(e)
    console.error(`toolgate: ${msg}`)
    process.exitCode = 1
  },
)
