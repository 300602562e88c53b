import { paint, terminal, wrap, type Look } from './output'
import { allFlags, commonFlags, type Command, type FlagSpec, type Group } from './spec'

/** Help is printed from the same table the dispatcher parses with, so it cannot drift from it. */

const visible = (commands: Command[]) => commands.filter((c) => !c.hidden)

function usageLine(c: Command): string {
  const args = c.args.map((a) => (a.optional ? `[${a.name}]` : a.name) + (a.variadic ? '...' : ''))
  return ['toolgate', c.name, ...args, '[flags]'].join(' ')
}

/** `-o, --output table|json` */
function flagLabel(name: string, f: FlagSpec): string {
  const long = `--${name}${f.value ? ` ${f.value}` : ''}${f.multiple ? '...' : ''}`
  return f.short ? `-${f.short}, ${long}` : `    ${long}`
}

/** Two columns that fold into one on a narrow terminal: the description moves under its label. */
function columns(rows: [string, string][], look: Look, left = Math.min(34, Math.max(...rows.map(([l]) => l.length)))): string[] {
  const narrow = look.width !== undefined && look.width < left + 30
  return rows.map(([l, r]) => (narrow || l.length > left
    ? `  ${l}\n${' '.repeat(narrow ? 6 : left + 4)}${wrap(r, look.width, narrow ? 6 : left + 4)}`
    : `  ${l.padEnd(left)}  ${wrap(r, look.width, left + 4)}`))
}

const heading = (look: Look, s: string) => paint(look, 'bold', s)

/** "toolgate <name> — <summary>", the summary wrapped after the name. */
const title = (look: Look, name: string, summary: string) => `${heading(look, name)} — ${wrap(summary, look.width, 2, name.length + 3)}`

export function commandHelp(c: Command, look: Look = terminal()): string {
  const flags = Object.entries(allFlags(c)).map(([name, f]): [string, string] =>
    [flagLabel(name, f), `${f.description}${f.multiple ? ' (repeatable)' : ''}${f.default ? ` (default: ${f.default})` : ''}`])
  return [
    title(look, `toolgate ${c.name}`, c.summary),
    '',
    heading(look, 'Usage:'),
    `  ${usageLine(c)}`,
    ...(c.details ? ['', wrap(c.details, look.width, 0)] : []),
    '',
    heading(look, 'Flags:'),
    ...columns(flags, look),
    '',
    heading(look, 'Examples:'),
    ...c.examples.flatMap(([cmd, what]) => [`  $ ${cmd}`, `      ${wrap(what, look.width, 6)}`]),
    '',
    heading(look, 'Exit codes:'),
    ...columns(Object.entries(c.exits).map(([code, what]) => [code, what]), look),
  ].join('\n')
}

export function groupHelp(g: Group, commands: Command[], look: Look = terminal()): string {
  const members = visible(commands).filter((c) => c.name.startsWith(`${g.name} `))
  return [
    title(look, `toolgate ${g.name}`, g.summary),
    '',
    heading(look, 'Usage:'),
    `  toolgate ${g.name} <command> [flags]`,
    '',
    heading(look, 'Commands:'),
    ...columns(members.map((c) => [c.name.slice(g.name.length + 1), c.summary]), look),
    '',
    wrap(`Run 'toolgate ${g.name} <command> --help' for its flags, examples and exit codes.`, look.width, 0),
  ].join('\n')
}

/** The overview: commands by group, then where to find more. */
export function overview(groups: Group[], commands: Command[], look: Look = terminal()): string {
  const shown = visible(commands)
  const left = Math.max(...shown.map((c) => c.name.length))
  const section = (name: string, members: Command[]) => ['', heading(look, wrap(name, look.width, 2)), ...columns(members.map((c) => [c.name, c.summary]), look, left)]
  return [
    title(look, 'toolgate', 'is every tool this job needs ready, and if not, why and what fixes it?'),
    '',
    heading(look, 'Usage:'),
    '  toolgate <command> [flags]',
    ...groups.flatMap((g) => section(`${g.name} — ${g.summary}`, shown.filter((c) => c.name.startsWith(`${g.name} `)))),
    ...section('run, check and set up', shown.filter((c) => !c.name.includes(' '))),
    '',
    wrap(`Commands on the database take --db FILE (default: ${commonFlags.db.default}) and -o table|json (default: table).`, look.width, 0),
    wrap(`Run 'toolgate <command> --help' or 'toolgate help <command>' for its flags, examples and exit codes.`, look.width, 0),
  ].join('\n')
}
