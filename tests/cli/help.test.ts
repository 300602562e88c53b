import { beforeAll, describe, expect, it } from 'vitest'
import pkg from '@/package.json'
import { commands, groups } from '@/lib/cli/commands'
import { allFlags } from '@/lib/cli/spec'
import { HASH_SCHEMA_VERSION } from '@/lib/preflight/hash'
import { runCli, runProcess } from '@/tests/helpers/cli'
import { bin } from './helpers'

const shown = commands.filter((c) => !c.hidden)

// a hundred real CLI runs: three at a time (one command's three ways of asking), not all at
// once, so the machine stays usable for the tests running beside these
describe('help at every level, printed from the command table', { timeout: 180_000 }, () => {
  beforeAll(() => runCli(['--version'])) // one build of the CLI bundle before the many runs
  it.each(shown.map((c) => [c.name, c] as const))('toolgate %s --help: usage, every flag, examples, exit codes (and -h and help print the same)', async (name, c) => {
    const [r, short, viaHelp] = await Promise.all([
      runCli([...name.split(' '), '--help']), runCli([...name.split(' '), '-h']), runCli(['help', ...name.split(' ')]),
    ])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`toolgate ${name}`)
    expect(r.stdout).toContain('Usage:')
    for (const [flag, spec] of Object.entries(allFlags(c))) {
      expect(r.stdout, `--${flag} of ${name}`).toContain(`--${flag}`)
      if (spec.short) expect(r.stdout).toContain(`-${spec.short}, --${flag}`)
      if (spec.default) expect(r.stdout).toContain(`(default: ${spec.default})`)
    }
    for (const a of c.args) expect(r.stdout).toContain(a.name)
    expect(c.examples.length).toBeGreaterThanOrEqual(2)
    for (const [example] of c.examples) expect(r.stdout).toContain(`$ ${example}`)
    expect(r.stdout).not.toContain('sha256/v1') // pins are v3 now
    const exits = r.stdout.slice(r.stdout.indexOf('Exit codes:'))
    for (const code of Object.keys(c.exits)) expect(exits).toMatch(new RegExp(`^  ${code} `, 'm'))
    expect(short).toEqual(r)
    expect(viaHelp).toEqual(r)
  })

  it('--help wins wherever it stands, even beside arguments and other flags', async () => {
    const r = await runCli(['upstream', 'add', 'x', '--command', 'nope', '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('toolgate upstream add <name> [flags]')
  })

  it.each(groups.map((g) => g.name))('toolgate %s --help lists its commands', async (name) => {
    const r = await runCli([name, '--help'])
    expect(r.code, r.stderr).toBe(0)
    for (const c of shown.filter((x) => x.name.startsWith(`${name} `))) expect(r.stdout).toMatch(new RegExp(`^  ${c.name.slice(name.length + 1)} `, 'm'))
    expect((await runCli(['help', name])).stdout).toBe(r.stdout)
  })

  it('the overview groups every command and points to --help; a bare toolgate prints it too, exit 0 (asking what there is is no failure)', async () => {
    const r = await runCli(['--help'])
    expect(r.code).toBe(0)
    for (const g of groups) expect(r.stdout).toContain(`${g.name} — ${g.summary}`)
    for (const c of shown) expect(r.stdout).toMatch(new RegExp(`^  ${c.name} `, 'm'))
    expect(r.stdout).not.toContain('__complete')
    expect(r.stdout).toContain("Run 'toolgate <command> --help'")
    const bare = await runCli([])
    expect(bare.code).toBe(0)
    expect(bare.stdout).toBe(r.stdout)
    const group = await runCli(['tools'])
    expect(group.code).toBe(0)
    expect(group.stdout).toBe((await runCli(['tools', '--help'])).stdout)
  })

  it('pins are shown in the format the library makes them', async () => {
    const r = await runCli(['tools', 'preflight', '--help'])
    expect(HASH_SCHEMA_VERSION).toBe(3)
    expect(r.stdout).toContain(`--pin <id>=sha256/v${HASH_SCHEMA_VERSION}:<hex>`)
  })

  it('an unknown subcommand, flag or help topic is exit 1 with a hint', async () => {
    const sub = await runCli(['tools', 'frobnicate'])
    expect(sub.code).toBe(1)
    expect(sub.stderr).toContain('unknown command "tools frobnicate"')
    expect(sub.stderr).toContain('hint: toolgate tools --help lists its commands')
    const flag = await runCli(['upstream', 'list', '--frobnicate'])
    expect(flag.code).toBe(1)
    expect(flag.stderr).toBe('toolgate: unknown flag --frobnicate for toolgate upstream list\nhint: toolgate upstream list --help lists its flags\n')
    const topic = await runCli(['help', 'upstream', 'frobnicate'])
    expect(topic.code).toBe(1)
    expect(topic.stderr).toContain('no command "upstream frobnicate"')
  })
})

describe('did you mean', () => {
  it('names the command or flag that was probably meant, with where to look', async () => {
    const cases: [string[], string, string][] = [
      [['tools', 'lst'], 'unknown command "tools lst"', 'hint: did you mean "tools list"? (toolgate tools --help lists its commands)'],
      [['tool', 'list'], 'unknown command "tool"', 'hint: did you mean "tools"? (toolgate --help lists the commands)'],
      [['--verison'], 'unknown flag --verison', 'hint: did you mean "--version"? (toolgate --help lists the commands)'],
      [['upstream', 'list', '--outptu', 'json'], 'unknown flag --outptu for toolgate upstream list', 'hint: did you mean "--output"? (toolgate upstream list --help lists its flags)'],
      [['tools', 'preflight', 'a:b', '--pinn=a:b=x'], 'unknown flag --pinn for toolgate tools preflight', 'hint: did you mean "--pin"? (toolgate tools preflight --help lists its flags)'],
    ]
    for (const [args, message, hint] of cases) {
      const r = await runCli(args)
      expect(r.code, args.join(' ')).toBe(1)
      expect(r.stderr).toBe(`toolgate: ${message}\n${hint}\n`)
    }
  })

  it('a flag without its value, or a value for a switch, is said plainly (quotes balanced)', async () => {
    const missing = await runCli(['tools', 'list', '--server'])
    expect(missing.stderr).toBe('toolgate: --server needs a value\nhint: toolgate tools list --help shows its usage\n')
    const extra = await runCli(['serve', '--rebuild=yes'])
    expect(extra.stderr.split('\n')[0]).toBe('toolgate: --rebuild takes no value')
    const dashed = await runCli(['calls', 'deny', 'call_x', '--reason', '-x'])
    expect(dashed.stderr.split('\n')[0]).toBe('toolgate: --reason needs a value (one that starts with "-" goes as --reason=-…)')
  })
})

describe('--version', () => {
  it('prints the package version', async () => {
    const r = await runCli(['--version'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(`toolgate ${pkg.version}\n`)
  })
})

describe('colour and width', { timeout: 180_000 }, () => {
  const tty = (cmd: string, env: Record<string, string> = {}) =>
    runProcess('script', ['-qfec', `stty cols 40; ${cmd}`, '/dev/null'], { env })

  it('no colour when output is not a terminal; FORCE_COLOR forces it; NO_COLOR always wins', async () => {
    const piped = await runCli(['tools', '--help'])
    expect(piped.stdout).not.toContain('\x1b[')
    expect((await runCli(['tools', '--help'], { FORCE_COLOR: '1' })).stdout).toContain('\x1b[1mUsage:\x1b[22m')
    expect((await runCli(['tools', '--help'], { FORCE_COLOR: '1', NO_COLOR: '1' })).stdout).not.toContain('\x1b[')
  })

  it('on a 40-column terminal, help wraps to fit and is coloured; NO_COLOR turns colour off there too', async () => {
    const r = await tty(`${process.execPath} ${bin} upstream --help`, { NO_COLOR: '' })
    expect(r.code).toBe(0)
    const lines = r.stdout.replace(/\x1b\[\d+m/g, '').split(/\r?\n/)
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(40)
    expect(r.stdout).toContain('\x1b[1m')
    const plain = await tty(`NO_COLOR=1 ${process.execPath} ${bin} upstream --help`)
    expect(plain.stdout).not.toContain('\x1b[')
  })
})
