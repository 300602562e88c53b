import { readFileSync } from 'node:fs'
import { cliActor, one, openCliDb, parse, UsageError } from '@/lib/cli/args'
import { loadState } from '@/lib/state/load'
import { dumpState } from '@/lib/state/dump'

export async function stateCommand(sub: string | undefined, argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {})
  if (sub === 'load') {
    const file = one(positionals, 'state file')
    let doc: unknown
    try {
      doc = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8'))
    } catch (e) {
      throw new UsageError(`cannot read ${file} as JSON: ${(e as Error).message}`)
    }
    const r = await loadState(openCliDb(values.db), doc, cliActor())
    console.log(`loaded ${file}: ${r.servers} servers, ${r.tools} tools`)
    return 0
  }
  if (sub === 'dump') {
    console.log(JSON.stringify(dumpState(openCliDb(values.db)), null, 2))
    return 0
  }
  throw new UsageError('usage: toolgate state load <file> | state dump')
}
