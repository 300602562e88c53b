import { UsageError } from '@/lib/cli/args'
import { table, terminal } from '@/lib/cli/output'
import { command, EXIT_ERROR, type Command } from '@/lib/cli/spec'

// The modules that do the work are imported when a command runs: `--help` stays fast.
const toJson = (v: unknown) => JSON.stringify(v, null, 2)
const USERNAME = { name: '<username>', what: 'a username' }
const ROLES_TEXT = 'viewer, auditor, operator, approver or admin'
const person = {
  name: { type: 'string' as const, value: 'TEXT', description: 'the person\'s name (default: the username)' },
  email: { type: 'string' as const, value: 'ADDRESS', description: 'their e-mail (they may sign in with it)' },
  role: { type: 'string' as const, value: 'ROLE', default: 'viewer', description: `one of ${ROLES_TEXT}` },
}

async function readStdin(): Promise<string> {
  let text = ''
  for await (const chunk of process.stdin) text += chunk
  return text.replace(/\r?\n$/, '')
}

export const operatorsCommands: Command[] = [
  command({
    name: 'operators list',
    summary: 'every operator account: username, name, e-mail, role, enabled, how it signs in (never a secret)',
    args: [], flags: {},
    examples: [['toolgate operators list', 'who may sign in, as what'], ['toolgate operators list -o json', 'for a script']],
    exits: { 0: 'listed', 1: EXIT_ERROR },
    run: async ({ json, db }) => {
      const { listOperators } = await import('@/lib/admin/operators')
      const rows = listOperators(db()).map(({ id: _id, hasPassword, createdAt, ...o }) => ({ ...o, password: hasPassword, created_at: new Date(createdAt).toISOString() }))
      if (json) console.log(toJson(rows))
      else console.log(table(['USERNAME', 'NAME', 'EMAIL', 'ROLE', 'ENABLED', 'SOURCE'], rows.map((o) => [o.username, o.name, o.email ?? '', o.role, o.enabled ? 'yes' : 'no', o.source]), terminal()))
      return 0
    },
  }),
  command({
    name: 'operators add',
    summary: 'create a local account with a password read from standard input (stored as a scrypt hash)',
    args: [USERNAME],
    flags: { ...person, 'password-stdin': { type: 'boolean', description: 'read the password from standard input (required: a password never goes on the command line)' } },
    examples: [['printf %s "$PW" | toolgate operators add alice --name Alice --role approver --password-stdin', 'an approver who signs in with that password'],
      ['toolgate operators add root --role admin --password-stdin < pw.txt', 'the first admin, before turning the break-glass key off']],
    exits: { 0: 'created (on the record)', 1: EXIT_ERROR },
    run: async ({ values, args: [username], json, db, ctx }) => {
      if (!values['password-stdin']) throw new UsageError('operators add needs --password-stdin (a password never goes on the command line)', 'or use toolgate operators invite, which makes a one-time link')
      const { addOperator } = await import('@/lib/admin/operators')
      const r = await addOperator(db(), { username, name: values.name ?? username, email: values.email ?? null, role: (values.role ?? 'viewer') as never, password: await readStdin() }, ctx)
      console.log(json ? toJson(r.operator) : `created ${r.operator.username} (${r.operator.role})`)
      return 0
    },
  }),
  command({
    name: 'operators invite',
    summary: 'create an account and print a one-time invitation link (it expires in 72 hours; only its hash is kept)',
    args: [USERNAME],
    flags: { ...person, url: { type: 'string', value: 'URL', default: 'http://127.0.0.1:3000', description: 'where toolgate is reached, for the link' } },
    examples: [['toolgate operators invite bob --role auditor --url https://toolgate.example.com', 'send bob the printed link'],
      ['toolgate operators invite carol --email carol@example.com -o json', 'the link and its expiry, for a script']],
    exits: { 0: 'invited (on the record)', 1: EXIT_ERROR },
    run: async ({ values, args: [username], json, db, ctx }) => {
      const { inviteOperator } = await import('@/lib/admin/operators')
      const r = await inviteOperator(db(), { username, name: values.name ?? username, email: values.email ?? null, role: (values.role ?? 'viewer') as never }, ctx)
      const link = `${(values.url ?? 'http://127.0.0.1:3000').replace(/\/$/, '')}${r.path}`
      console.log(json ? toJson({ ...r.operator, link, expires_at: new Date(r.expiresAt).toISOString() }) : link)
      return 0
    },
  }),
  command({
    name: 'operators role',
    summary: `change a person's role (${ROLES_TEXT}); tokens carrying more than the new role end`,
    args: [USERNAME, { name: '<role>', what: 'a role' }], flags: {},
    examples: [['toolgate operators role bob approver', 'bob may approve from now on'], ['toolgate operators role alice viewer', 'alice only reads; her stronger tokens end']],
    exits: { 0: 'changed (on the record)', 1: EXIT_ERROR },
    run: async ({ args: [username, role], json, db, ctx }) => {
      const { changeOperator } = await import('@/lib/admin/operators')
      const r = await changeOperator(db(), username, { role: role as never }, ctx)
      console.log(json ? toJson(r.after) : `${username}: ${r.before.role} → ${r.after.role}${r.tokens ? ` (${r.tokens} tokens revoked)` : ''}`)
      return 0
    },
  }),
  command({
    name: 'operators disable',
    summary: 'turn an account off: its sessions and tokens end at once (the account stays, so the log still names it)',
    args: [USERNAME], flags: { enable: { type: 'boolean', description: 'turn it back on instead' } },
    examples: [['toolgate operators disable carol', 'carol left the team'], ['toolgate operators disable carol --enable', 'she is back']],
    exits: { 0: 'changed (on the record)', 1: EXIT_ERROR },
    run: async ({ values, args: [username], json, db, ctx }) => {
      const { changeOperator } = await import('@/lib/admin/operators')
      const r = await changeOperator(db(), username, { enabled: values.enable === true }, ctx)
      console.log(json ? toJson({ ...r.after, sessions_ended: r.sessions, tokens_revoked: r.tokens }) : `${username}: ${r.after.enabled ? 'enabled' : `disabled (${r.sessions} sessions and ${r.tokens} tokens ended)`}`)
      return 0
    },
  }),
]
