import path from 'node:path'
import { profileList, tokens } from '@/db/queries/access'
import { serverNames } from '@/db/queries/servers'
import { readSettings } from '@/db/queries/settings'
import { suggestToolIds } from '@/db/queries/tools'
import type { Db } from '@/db/client'
import { activityTypes } from '@/lib/activity/vocabulary'
import { presentSettings } from '@/lib/admin/settings'
import { listCalls } from '@/lib/approvals/calls'
import { openReadOnly } from './args'
import { allFlags, type Command, type Completion, type Group } from './spec'

export const shells = ['bash', 'zsh', 'fish'] as const
export type Shell = (typeof shells)[number]

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/**
 * The script for one shell. Each asks the hidden `toolgate __complete <words…>` for the
 * candidates (the last word is the one being completed), through the same node and bin that
 * printed the script: `npx toolgate` is usually not on PATH. An empty answer falls back to files.
 */
export function completionScript(shell: Shell): string {
  const self = `${quote(process.execPath)} ${quote(path.resolve(process.argv[1]))}`
  if (shell === 'bash') {
    return `# toolgate completion for bash: source <(toolgate completion bash)
_toolgate() {
  local words=() i w n cur
  # bash splits "notes:read_note" at the colon (COMP_WORDBREAKS); glue the pieces back
  for ((i = 1; i <= COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    n=\${#words[@]}
    if ((n > 0)) && [[ $w == :* || \${words[n-1]} == *: ]]; then words[n-1]+=$w; else words+=("$w"); fi
  done
  cur=\${words[\${#words[@]}-1]}
  local IFS=$'\\n'
  COMPREPLY=($(${self} __complete "\${words[@]}" 2>/dev/null))
  # bash replaces only the text after the last colon: drop what is already typed before it
  if [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then
    for i in "\${!COMPREPLY[@]}"; do COMPREPLY[i]=\${COMPREPLY[i]#"\${cur%:*}:"}; done
  fi
}
complete -o default -F _toolgate toolgate
`
  }
  if (shell === 'zsh') {
    return `# toolgate completion for zsh: source <(toolgate completion zsh)
(( $+functions[compdef] )) || { autoload -Uz compinit && compinit }
_toolgate() {
  local -a candidates
  candidates=(\${(f)"$(${self} __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)"})
  if (( \${#candidates} )); then compadd -Q -- "\${candidates[@]}"; else _files; fi
}
compdef _toolgate toolgate
`
  }
  return `# toolgate completion for fish: toolgate completion fish | source
function __toolgate_complete
    set -l candidates (${self} __complete (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)
    if test (count $candidates) -gt 0
        printf '%s\\n' $candidates
    else
        __fish_complete_path (commandline -ct)
    end
end
complete -c toolgate -f -a '(__toolgate_complete)'
`
}

/** Names from the database; none when it does not exist yet (completion never creates it). */
function fromDb(dbFile: string | undefined, read: (db: Db) => string[]): string[] {
  const db = openReadOnly(dbFile)
  if (!db) return []
  try {
    return read(db)
  } catch {
    return [] // a database from another version, locked, unreadable: no candidates rather than noise
  } finally {
    db.$client.close()
  }
}

function candidates(kind: Completion | undefined, cur: string, dbFile: string | undefined, table: CompletionTable, helpWords: string[]): string[] {
  if (kind === undefined || kind === 'file') return []
  if (typeof kind !== 'string') return [...kind]
  switch (kind) {
    case 'server': return fromDb(dbFile, serverNames)
    case 'tool': return fromDb(dbFile, (db) => suggestToolIds(db, cur, 500))
    case 'call': return fromDb(dbFile, (db) => listCalls(db, 'pending').map((c) => c.id))
    case 'setting': return fromDb(dbFile, (db) => Object.keys(presentSettings(readSettings(db))))
    case 'profile': return fromDb(dbFile, (db) => profileList(db).map((p) => p.name))
    case 'token': return fromDb(dbFile, (db) => tokens(db).map((t) => t.name))
    case 'activity-type': return [...activityTypes]
    case 'command': return commandWords(table, helpWords)
  }
}

export interface CompletionTable { commands: Command[]; groups: Group[] }

/** The next word of a command name after `words`: a group or top-level command, then a subcommand. */
function commandWords({ commands }: CompletionTable, words: string[]): string[] {
  const names = commands.filter((c) => !c.hidden).map((c) => c.name.split(' '))
  return [...new Set(names.filter((n) => n.length > words.length && words.every((w, i) => n[i] === w)).map((n) => n[words.length]))]
}

/** The command the leading words name, the longest match first. */
export function findCommand(commands: Command[], words: string[]): Command | undefined {
  return commands
    .filter((c) => c.name.split(' ').every((w, i) => words[i] === w))
    .sort((a, b) => b.name.length - a.name.length)[0]
}

/** Candidates for the last word of `words` (everything typed after `toolgate`), filtered by what it starts with. */
export function complete(table: CompletionTable, words: string[]): string[] {
  const cur = words.at(-1) ?? ''
  const before = words.slice(0, -1)
  const cmd = findCommand(table.commands, before)
  const match = (list: string[]) => list.filter((c) => c.startsWith(cur))
  if (!cmd || cmd.hidden) return match(before.length === 0 ? [...commandWords(table, []), '--help', '--version'] : commandWords(table, before))

  const flags = allFlags(cmd)
  const rest = before.slice(cmd.name.split(' ').length)
  const flagOf = (w: string) => Object.entries(flags).find(([name, f]) => w === `--${name}` || (f.short && w === `-${f.short}`))?.[1]
  // --db may appear anywhere: names come from that database
  const dbAt = rest.findIndex((w) => w === '--db' || w.startsWith('--db='))
  const dbFile = dbAt < 0 ? undefined : rest[dbAt].startsWith('--db=') ? rest[dbAt].slice(5) : rest[dbAt + 1]

  const prev = flagOf(rest.at(-1) ?? '')
  if (prev?.type === 'string') return match(candidates(prev.complete, cur, dbFile, table, []))
  if (cur.startsWith('-')) return match(Object.keys(flags).map((n) => `--${n}`))

  const positionals: string[] = []
  for (let i = 0; i < rest.length; i++) {
    const f = flagOf(rest[i])
    if (f?.type === 'string') i++ // its value
    else if (!rest[i].startsWith('-')) positionals.push(rest[i])
  }
  const arg = cmd.args[positionals.length] ?? (cmd.args.at(-1)?.variadic ? cmd.args.at(-1) : undefined)
  return match(candidates(arg?.complete, cur, dbFile, table, positionals))
}
