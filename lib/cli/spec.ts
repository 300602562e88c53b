import type { Db } from '@/db/client'
import type { ActionContext } from '@/lib/activity/record-change'

/**
 * What a command's words complete to in the shell: names read from the database, a file
 * (left to the shell), or a fixed list.
 */
export type Completion = 'server' | 'tool' | 'call' | 'setting' | 'profile' | 'token' | 'activity-type' | 'command' | 'file' | readonly string[]

export interface FlagSpec {
  type: 'string' | 'boolean'
  short?: string
  multiple?: boolean
  /** the value's placeholder in help, e.g. FILE */
  value?: string
  /** shown in help; what applies when the flag is not given */
  default?: string
  description: string
  complete?: Completion
}

export interface ArgSpec {
  /** as shown in usage, e.g. <server:tool> */
  name: string
  /** what it is, in a "missing …" message */
  what: string
  variadic?: boolean
  optional?: boolean
  complete?: Completion
}

/** A command's flags, parsed: strings, booleans or lists as each flag declares. */
export type Values<F extends Record<string, FlagSpec>> = {
  -readonly [K in keyof F]?: F[K] extends { type: 'boolean' } ? boolean : F[K] extends { multiple: true } ? string[] : string
} & { db?: string }

export interface RunContext<F extends Record<string, FlagSpec>> {
  values: Values<F>
  args: string[]
  json: boolean
  /** the database (--db, else $TOOLGATE_DB, else ./data/toolgate.db), opened on first use */
  db: () => Db
  /** who acts (cli:<user>) and the one request id every record of this run is written under */
  ctx: Required<Pick<ActionContext, 'actor' | 'requestId'>>
}

export interface Command<F extends Record<string, FlagSpec> = Record<string, FlagSpec>> {
  /** the words that name it: "tools preflight" */
  name: string
  summary: string
  /** a paragraph for its --help: what it does that the summary cannot say */
  details?: string
  args: ArgSpec[]
  flags: F
  /** takes --db (default true) */
  db?: boolean
  /** may make the database --db or $TOOLGATE_DB names (serve, state load); every other command refuses a file that does not exist */
  createsDb?: boolean
  /** takes -o table|json (default true) */
  output?: boolean
  /** left out of help and completion (the completion scripts' helper) */
  hidden?: boolean
  /** runs with $TOOLGATE_DATABASE_URL set (db copy, doctor); every other command refuses it: they run on SQLite only, for now */
  postgres?: boolean
  /** takes its words exactly as typed, flags included, unparsed (the completion helper) */
  raw?: boolean
  examples: [command: string, what: string][]
  /** every exit code it can return, with what each means for this command */
  exits: Record<number, string>
  run: (c: RunContext<F>) => Promise<number>
}

/** Keeps each command's flag names typed in its run function while the table holds them all alike. */
export const command = <const F extends Record<string, FlagSpec>>(c: Command<F>): Command => c as unknown as Command

/** A command group ("tools", "upstream" …): its words and what its commands are for. */
export interface Group { name: string; summary: string }

export const EXIT_ERROR = 'an error: bad input, a failed read or write, a server that answered an error (message on stderr)'

/** The flags every database command takes besides its own: in help, parsing and completion alike. */
export const commonFlags = {
  db: { type: 'string', value: 'FILE', default: '$TOOLGATE_DB, else ./data/toolgate.db', description: 'the database file (the one the server uses)', complete: 'file' },
  output: { type: 'string', short: 'o', value: 'table|json', default: 'table', description: 'output format: table for people, json for scripts', complete: ['table', 'json'] },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
} as const satisfies Record<string, FlagSpec>

/** A command's flags as parsed: its own, plus the common ones it takes. */
export function allFlags(c: Command): Record<string, FlagSpec> {
  return {
    ...c.flags,
    ...(c.db !== false ? { db: commonFlags.db } : {}),
    ...(c.output !== false ? { output: commonFlags.output } : {}),
    help: commonFlags.help,
  }
}
