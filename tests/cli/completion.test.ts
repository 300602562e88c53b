import { describe, expect, it, beforeAll } from 'vitest'
import { runCli, runProcess } from '@/tests/helpers/cli'
import { bin, demoDbFile } from './helpers'

/**
 * Source the real bash script, set the words as bash would, call the function bash would call
 * for the command word (toolgate's or npx's), print COMPREPLY. `before` runs first (another
 * completion already registered for npx).
 */
async function bashComplete(words: string[], cword: number, env: Record<string, string>, before = ''): Promise<string[]> {
  const quoted = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ')
  const script = `${before}
source <("${process.execPath}" "${bin}" completion bash) || exit 3
COMP_WORDS=(${quoted}); COMP_CWORD=${cword}
$(complete -p ${words[0]} | sed -E 's/.*-F ([^ ]+).*/\\1/')
printf '%s\\n' "\${COMPREPLY[@]}"`
  const r = await runProcess('bash', ['-c', script], { env })
  expect(r.code, r.stderr).toBe(0)
  return r.stdout.split('\n').filter(Boolean)
}

// each case is a real bash running the real CLI, on machines shared with other work
describe('shell completion', { timeout: 180_000 }, () => {
  let db: string
  beforeAll(async () => {
    db = await demoDbFile()
  })

  it('bash: the script loads and completes a server name from the database', async () => {
    const servers = await bashComplete(['toolgate', 'upstream', 'enable', 'no'], 3, { TOOLGATE_DB: db })
    expect(servers).toEqual(['notebook', 'notes'])
    // --db on the line wins over the environment
    expect(await bashComplete(['toolgate', 'upstream', 'enable', '--db', db, 'leg'], 5, { TOOLGATE_DB: '/nonexistent/x.db' })).toEqual(['legacy-ci'])
  })

  it('bash: tool ids across the colon bash splits words at', async () => {
    // typed: toolgate tools approve notes:rea<TAB>; bash's words: notes : rea
    expect(await bashComplete(['toolgate', 'tools', 'approve', 'notes', ':', 'rea'], 5, { TOOLGATE_DB: db })).toEqual(['read_note'])
    expect(await bashComplete(['toolgate', 'tools', 'preflight', 'notes:read_note', 'git'], 4, { TOOLGATE_DB: db })).toEqual(expect.arrayContaining(['github:list_issues']))
  })

  it('bash: commands, subcommands, flags and flag values', async () => {
    const env = { TOOLGATE_DB: db }
    expect(await bashComplete(['toolgate', 'up'], 1, env)).toEqual(['upstream'])
    expect(await bashComplete(['toolgate', 'upstream', 'set-'], 2, env)).toEqual(['set-secret'])
    expect(await bashComplete(['toolgate', 'upstream', 'add', 'x', '--cw'], 4, env)).toEqual(['--cwd'])
    expect(await bashComplete(['toolgate', 'tools', 'list', '-o', ''], 4, env)).toEqual(['table', 'json'])
    expect(await bashComplete(['toolgate', 'tools', 'list', '--server', 'bil'], 4, env)).toEqual(['billing'])
    expect(await bashComplete(['toolgate', 'help', 'upstream', 'log'], 3, env)).toEqual(['login', 'logs'])
    expect(await bashComplete(['toolgate', 'completion', ''], 2, env)).toEqual(['bash', 'zsh', 'fish'])
  })

  it('bash: npx toolgate completes as toolgate does; other npx lines keep the completion they had', async () => {
    const env = { TOOLGATE_DB: db }
    expect(await bashComplete(['npx', 'toolgate', 'tools', 'ap'], 3, env)).toEqual(['approve'])
    expect(await bashComplete(['npx', 'toolgate', 'tools', 'approve', 'notes', ':', 'rea'], 6, env)).toEqual(['read_note'])
    expect(await bashComplete(['npx', 'tool'], 1, env)).toEqual([]) // not toolgate's yet: -o default completes files
    const before = '_other_npx() { COMPREPLY=(from-before); }; complete -F _other_npx npx'
    expect(await bashComplete(['npx', 'cowsay', ''], 2, env, before)).toEqual(['from-before'])
    expect(await bashComplete(['npx', 'toolgate', 'up'], 2, env, before)).toEqual(['upstream'])
  })

  it('completion never creates a database', async () => {
    const r = await runCli(['__complete', 'upstream', 'enable', ''], { TOOLGATE_DB: '/tmp/toolgate-no-such-dir/never.db' })
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' })
  })

  it('zsh and fish scripts call the same helper', async () => {
    const zsh = await runCli(['completion', 'zsh'])
    expect(zsh.stdout).toContain('compdef _toolgate toolgate')
    expect(zsh.stdout).toContain('compdef _toolgate_npx npx')
    expect(zsh.stdout).toContain(`'${bin}' __complete`)
    const fish = await runCli(['completion', 'fish'])
    expect(fish.stdout).toContain("complete -c toolgate -f -a '(__toolgate_complete)'")
    expect(fish.stdout).toContain("complete -c npx -n 'test (count (commandline -opc)) -ge 2; and test (commandline -opc)[2] = toolgate' -f -a '(__toolgate_complete)'")
    expect(fish.stdout).toContain(`'${bin}' __complete`)
    const bad = await runCli(['completion', 'tcsh'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('completion is for bash, zsh, fish')
  })
})
