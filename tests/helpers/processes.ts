import { readdirSync, readFileSync } from 'node:fs'

/**
 * The suite's own processes, told apart from everything else on a shared machine by an
 * environment marker: scripts/test.mjs (or the global setup, for a bare `vitest run`) sets
 * TOOLGATE_TEST_RUN to an id of this run, every process the tests start inherits it, and the
 * per-file check adds TOOLGATE_TEST_FILE (which file started it). A process is never picked by
 * its name: another checkout's `toolgate serve` looks the same and is none of our business.
 */
export const RUN_VAR = 'TOOLGATE_TEST_RUN'
export const FILE_VAR = 'TOOLGATE_TEST_FILE'

export interface SuiteProcess { pid: number; pgid: number; command: string; file?: string }

/** The environment a process started with, or undefined when it cannot be read (gone, a zombie, not ours). */
function environOf(pid: number): Map<string, string> | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/environ`, 'utf8')
    if (!raw) return undefined
    return new Map(raw.split('\0').filter(Boolean).map((kv) => {
      const i = kv.indexOf('=')
      return [kv.slice(0, i), kv.slice(i + 1)]
    }))
  } catch {
    return undefined
  }
}

/** pid, process group and state from /proc/<pid>/stat (the name in parentheses may hold spaces). */
function statOf(pid: number): { pgid: number; ppid: number; state: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { state, ppid: Number(ppid), pgid: Number(pgid) }
  } catch {
    return undefined
  }
}

const commandOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ')
  } catch {
    return '?'
  }
}

/**
 * Live processes carrying run id `run` (and, when given, started from `file`), but for this
 * process, its ancestors and the processes `exclude` names. Zombies are not counted: they run
 * nothing and hold no port, and their parent reaps them.
 */
export function suiteProcesses(run: string, opts: { file?: string; exclude?: (p: { pid: number; ppid: number; command: string }) => boolean } = {}): SuiteProcess[] {
  const ancestors = new Set<number>()
  for (let pid = process.pid; pid > 1; pid = statOf(pid)?.ppid ?? 0) ancestors.add(pid)
  const found: SuiteProcess[] = []
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid) || ancestors.has(pid)) continue
    const env = environOf(pid)
    if (env?.get(RUN_VAR) !== run || (opts.file && env.get(FILE_VAR) !== opts.file)) continue
    const stat = statOf(pid)
    if (!stat || stat.state === 'Z' || stat.state === 'X') continue
    const command = commandOf(pid)
    if (opts.exclude?.({ pid, ppid: stat.ppid, command })) continue
    found.push({ pid, pgid: stat.pgid, command, file: env.get(FILE_VAR) })
  }
  return found
}

/**
 * Kill what was left behind: a process group whose leader is one of them (a detached server and
 * the upstreams it started), otherwise the process alone. Never a group we belong to.
 */
export function killLeftovers(left: SuiteProcess[]): void {
  const ownGroup = statOf(process.pid)?.pgid
  for (const p of left) {
    try {
      if (p.pgid === p.pid && p.pgid !== ownGroup) process.kill(-p.pgid, 'SIGKILL')
      else process.kill(p.pid, 'SIGKILL')
    } catch { /* gone meanwhile */ }
  }
}

/** One line per process, for a failure message. */
export const describeLeftovers = (left: SuiteProcess[]) =>
  left.map((p) => `  pid ${p.pid}${p.file ? ` (started by ${p.file})` : ''}: ${p.command.length > 300 ? `${p.command.slice(0, 300)}…` : p.command}`).join('\n')

/**
 * Wait up to `graceMs` for `list()` to come back empty (a server told to stop may take a moment
 * to exit), then return what is still there.
 */
export async function lingering(list: () => SuiteProcess[], graceMs: number): Promise<SuiteProcess[]> {
  const deadline = Date.now() + graceMs
  for (;;) {
    const left = list()
    if (!left.length || Date.now() > deadline) return left
    await new Promise((r) => setTimeout(r, 200))
  }
}
