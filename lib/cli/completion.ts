import path from 'node:path'
import { activityTypes } from '@/lib/core/activity'
import { allFlags, type Command, type Completion, type Group } from './spec'

export const shells = ['bash', 'zsh', 'fish'] as const
export type Shell = (typeof shells)[number]

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/**
 * The script for one shell. Each asks the hidden `toolgate __complete <words…>` for the
 * candidates (the last word is the one being completed), through the same node and bin that
 * printed the script: `npx toolgate` is usually not on PATH. It completes both `toolgate …` (an
 * installed one) and `npx toolgate …`: for npx it steps in only when the first word is toolgate,
 * and leaves every other npx line to the completion npx had before (or the shell's default).
 * An empty answer falls back to files.
 */
export function completionScript(shell: Shell): string {
  const self = `${quote(process.execPath)} ${quote(path.resolve(process.argv[1]))}`
  if (shell === 'bash') {
    return `# toolgate completion for bash: source <(npx toolgate completion bash)
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
# npx toolgate …: toolgate's words without the npx in front; any other npx line as before
if [[ $(complete -p npx 2>/dev/null) =~ -F[[:space:]]([^[:space:]]+) && \${BASH_REMATCH[1]} != _toolgate_npx ]]; then _toolgate_npx_before=\${BASH_REMATCH[1]}; fi
_toolgate_npx() {
  if ((COMP_CWORD >= 2)) && [[ \${COMP_WORDS[1]} == toolgate ]]; then
    local COMP_WORDS=("\${COMP_WORDS[@]:1}") COMP_CWORD=$((COMP_CWORD - 1))
    _toolgate
  elif [[ -n \${_toolgate_npx_before-} ]]; then
    "$_toolgate_npx_before" "$@"
  fi
}
complete -o default -F _toolgate_npx npx
`
  }
  if (shell === 'zsh') {
    return `# toolgate completion for zsh: source <(npx toolgate completion zsh)
(( $+functions[compdef] )) || { autoload -Uz compinit && compinit }
_toolgate() {
  local -a candidates
  candidates=(\${(f)"$(${self} __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)"})
  if (( \${#candidates} )); then compadd -Q -- "\${candidates[@]}"; else _files; fi
}
compdef _toolgate toolgate
# npx toolgate …: toolgate's words without the npx in front; any other npx line as before
[[ \${_comps[npx]-} == _toolgate_npx ]] || _toolgate_npx_before=\${_comps[npx]-}
_toolgate_npx() {
  if (( CURRENT > 2 )) && [[ \${words[2]} == toolgate ]]; then
    shift words; (( CURRENT-- )); _toolgate
  elif [[ -n \${_toolgate_npx_before-} ]]; then
    "$_toolgate_npx_before" "$@"
  else
    _files
  fi
}
compdef _toolgate_npx npx
`
  }
  return `# toolgate completion for fish: npx toolgate completion fish | source
function __toolgate_complete
    # the words after "toolgate", whether it was typed as toolgate or as npx toolgate
    set -l words (commandline -opc)
    set -l from 2
    test "$words[1]" = npx; and set from 3
    set -l candidates (${self} __complete $words[$from..-1] (commandline -ct) 2>/dev/null)
    if test (count $candidates) -gt 0
        printf '%s\\n' $candidates
    else
        __fish_complete_path (commandline -ct)
    end
end
complete -c toolgate -f -a '(__toolgate_complete)'
complete -c npx -n 'test (count (commandline -opc)) -ge 2; and test (commandline -opc)[2] = toolgate' -f -a '(__toolgate_complete)'
`
}

async function candidates(kind: Completion | undefined, cur: string, dbFile: string | undefined, table: CompletionTable, helpWords: string[]): Promise<string[]> {
  if (kind === undefined || kind === 'file') return []
  if (typeof kind !== 'string') return [...kind]
  if (kind === 'activity-type') return [...activityTypes]
  if (kind === 'command') return commandWords(table, helpWords)
  // names from the database: its driver loads only for a word that needs one
  const { namesOf } = await import('./completion-names')
  return namesOf(kind, cur, dbFile)
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
export async function complete(table: CompletionTable, words: string[]): Promise<string[]> {
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
  if (prev?.type === 'string') return match(await candidates(prev.complete, cur, dbFile, table, []))
  if (cur.startsWith('-')) return match(Object.keys(flags).map((n) => `--${n}`))

  const positionals: string[] = []
  for (let i = 0; i < rest.length; i++) {
    const f = flagOf(rest[i])
    if (f?.type === 'string') i++ // its value
    else if (!rest[i].startsWith('-')) positionals.push(rest[i])
  }
  const arg = cmd.args[positionals.length] ?? (cmd.args.at(-1)?.variadic ? cmd.args.at(-1) : undefined)
  return match(await candidates(arg?.complete, cur, dbFile, table, positionals))
}
