import { UsageError } from '@/lib/cli/args'
import { complete, completionScript, findCommand, shells, type Shell } from '@/lib/cli/completion'
import { commandHelp, groupHelp, overview } from '@/lib/cli/help'
import { command, EXIT_ERROR, type Command, type Group } from '@/lib/cli/spec'
import { activityCommands } from './activity'
import { callsCommands } from './calls'
import { dbCommands } from './db'
import { definitionGroupsHelp, definitionsCommands } from './definitions'
import { doctorCommand } from './doctor'
import { operatorsCommands } from './operators'
import { serveCommands } from './serve'
import { settingsCommands } from './settings'
import { stateCommands } from './state'
import { surfaceCommands } from './surface'
import { toolsCommands } from './tools'
import { upstreamCommands } from './upstream'
import { versionCommand } from './version'

/** The command groups, in the order the overview shows them. */
export const groups: Group[] = [
  { name: 'tools', summary: 'the preflight check, inventory and approvals' },
  { name: 'calls', summary: 'calls held for an operator\'s approval' },
  ...definitionGroupsHelp,
  { name: 'upstream', summary: 'the MCP servers toolgate manages' },
  { name: 'activity', summary: 'the record: who did what, every check and call' },
  { name: 'settings', summary: 'proxy-wide settings' },
  { name: 'surface', summary: 'what each scope\'s tool list costs in tokens, and which tools read alike' },
  { name: 'state', summary: 'state files: the whole configuration in one JSON file' },
  { name: 'operators', summary: 'people: accounts, roles, invitations' },
  { name: 'operator-key', summary: 'the operator API key (the break-glass key)' },
  { name: 'db', summary: 'the database: copy a SQLite database into PostgreSQL' },
]

/** `help <command>`: the same text as `<command> --help`. */
export function helpFor(words: string[]): string {
  if (words.length === 0) return overview(groups, commands)
  const c = findCommand(commands, words)
  if (c && !c.hidden && c.name.split(' ').length === words.length) return commandHelp(c)
  const g = groups.find((x) => x.name === words[0])
  if (g && words.length === 1) return groupHelp(g, commands)
  throw new UsageError(`no command "${words.join(' ')}"`, 'toolgate --help lists the commands')
}

const helpCommand = command({
  name: 'help',
  summary: 'help on a command or group: usage, flags with defaults, examples, exit codes',
  args: [{ name: '<command>', what: 'command', variadic: true, optional: true, complete: 'command' }],
  flags: {},
  db: false,
  output: false,
  examples: [['toolgate help', 'the overview'], ['toolgate help upstream add', 'the same as toolgate upstream add --help'], ['toolgate help tools', 'the tools commands']],
  exits: { 0: 'printed', 1: 'no such command' },
  run: async ({ args }) => {
    console.log(helpFor(args))
    return 0
  },
})

const completionCommand = command({
  name: 'completion',
  summary: 'print a shell completion script: commands, flags, server names and tool ids',
  details: 'The script completes both toolgate (installed on PATH) and npx toolgate; other npx lines keep the completion they had. Completion reads names from the database (--db on the line being completed, else $TOOLGATE_DB, else ./data/toolgate.db), read-only. The script runs this toolgate through the node that printed it: print it again after moving the repository or changing Node.js.',
  args: [{ name: '<shell>', what: `shell (${shells.join(', ')})`, complete: shells }],
  flags: {},
  db: false,
  output: false,
  examples: [
    ['source <(npx toolgate completion bash)', 'bash, this shell; add the line to ~/.bashrc to keep it'],
    ['source <(npx toolgate completion zsh)', 'zsh, this shell; add the line to ~/.zshrc to keep it'],
    ['npx toolgate completion fish > ~/.config/fish/completions/toolgate.fish', 'fish, for good'],
  ],
  exits: { 0: 'printed', 1: 'not a shell toolgate completes' },
  run: async ({ args: [shell] }) => {
    if (!shells.includes(shell as Shell)) throw new UsageError(`completion is for ${shells.join(', ')}, not "${shell}"`)
    process.stdout.write(completionScript(shell as Shell))
    return 0
  },
})

/** What the completion scripts call: one candidate per line. Never fails loudly: a shell is waiting. */
const completeCommand = command({
  name: '__complete',
  summary: 'completion candidates for the words typed so far (used by the completion scripts)',
  args: [{ name: '<word>', what: 'word', variadic: true, optional: true }],
  flags: {},
  db: false,
  output: false,
  hidden: true,
  raw: true,
  examples: [['toolgate __complete upstream enable ""', 'the server names']],
  exits: { 0: 'printed (possibly nothing)', 1: EXIT_ERROR },
  run: async ({ args }) => {
    const found = await complete({ commands, groups }, args.length ? args : [''])
    if (found.length) console.log(found.join('\n'))
    return 0
  },
})

/**
 * THE command table: every command with its flags, help, examples and exit codes, and the
 * function that runs it. The dispatcher parses with it, help prints it and completion walks it.
 * Each group's commands live beside their code; this list is the only place they are joined.
 */
export const commands: Command[] = [
  ...toolsCommands,
  ...callsCommands,
  ...definitionsCommands,
  ...upstreamCommands,
  ...activityCommands,
  ...settingsCommands,
  ...surfaceCommands,
  ...stateCommands,
  ...operatorsCommands,
  ...serveCommands,
  ...dbCommands,
  doctorCommand,
  versionCommand,
  completionCommand,
  helpCommand,
  completeCommand,
]
