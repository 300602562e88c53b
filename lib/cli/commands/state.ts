import { readFileSync } from 'node:fs'
import { UsageError } from '@/lib/cli/args'
import { command, EXIT_ERROR, type Command } from '@/lib/cli/spec'
import { forTerminal, toJson } from '@/lib/cli/output'
import type { MovedSecrets } from '@/lib/core/activity'
import type { StateFileInput } from '@/lib/schemas/state'

/** What a state holds, counted the way the state.loaded record counts it. */
const counts = (s: StateFileInput) => ({
  servers: s.servers?.length ?? 0, tools: (s.servers ?? []).reduce((n, x) => n + (x.tools?.length ?? 0), 0),
  profiles: s.profiles?.length ?? 0, agent_tokens: s.agent_tokens?.length ?? 0,
  ...(s.operators ? { operators: s.operators.length } : {}),
})

/** The secrets of one moved server, by name (never by value). */
const whatMoved = (m: MovedSecrets) => [...m.secrets, ...(m.oauth ? ['its OAuth tokens and client'] : [])].join(', ')

export const stateCommands: Command[] = [
  command({
    name: 'state load',
    summary: 'replace the proxy state (servers, tools, profiles, agent tokens, settings, operator accounts) from a state file, all or nothing',
    details: 'Activity records and the operator key are kept; operator accounts are replaced only when the file lists them (`operators`: the accounts it keeps keep their passwords, sessions and tokens, new ones have no password, the others are removed), and so are the stored secrets of every server the file keeps, unless the file points it at another target (URL origin, or command line): those are dropped, and named, so a file edited to name another URL never receives the old credentials. Best run while toolgate is stopped.',
    args: [{ name: '<file>', what: 'state file (or - for stdin)', complete: 'file' }],
    createsDb: true,
    flags: { 'keep-secrets': { type: 'boolean', description: 'keep the stored secrets of servers the file moves to another URL or command (they go to the new target)' } },
    examples: [['toolgate state load lib/state/demo-state.json', 'back to the demo, keeping the activity log'], ['toolgate state dump | toolgate state load - -o json', 'a round trip; counts before/after as JSON']],
    exits: { 0: 'loaded (on the record)', 1: `the file is not a valid state file (nothing changed), or ${EXIT_ERROR}` },
    run: async ({ args: [file], values, json, db, ctx }) => {
      const [{ loadState }, { dumpState }] = await Promise.all([import('@/lib/state/load'), import('@/lib/state/dump')])
      let doc: unknown
      try {
        doc = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8'))
      } catch (e) {
        throw new UsageError(`cannot read ${file} as JSON: ${(e as Error).message}`)
      }
      const before = counts(dumpState(db()))
      const r = await loadState(db(), doc, ctx.actor, { keepSecrets: values['keep-secrets'] ?? false })
      if (json) {
        console.log(toJson({
          file, before, after: r.after, secrets_dropped: r.secretsDropped, secrets_kept: r.secretsKept,
          activity_id: r.activityId, request_id: r.requestId,
        }))
        return 0
      }
      console.log(`loaded ${file}: ${r.servers} servers, ${r.tools} tools  (activity ${r.activityId}, request_id ${r.requestId})`)
      for (const m of r.secretsDropped) console.log(forTerminal(`${m.server}: stored secrets dropped, its target changed (${m.from} → ${m.to}): ${whatMoved(m)}. Set them again for the new target (toolgate upstream set-secret / upstream login), or load with --keep-secrets`))
      for (const m of r.secretsKept) console.log(forTerminal(`${m.server}: stored secrets kept for its new target (--keep-secrets: ${m.from} → ${m.to}): ${whatMoved(m)}`))
      return 0
    },
  }),
  command({
    name: 'state dump',
    summary: 'print the current state as a state file (JSON whatever -o says; agent tokens as token_hash, accounts without passwords)',
    args: [],
    flags: {},
    examples: [['toolgate state dump > backup.json', 'keep a copy'], ['toolgate state dump | jq \'.servers[].name\'', 'the server names']],
    exits: { 0: 'printed', 1: EXIT_ERROR },
    run: async ({ db }) => {
      const { dumpState } = await import('@/lib/state/dump')
      console.log(toJson(dumpState(db())))
      return 0
    },
  }),
]
