import { spawn } from 'node:child_process'
import path from 'node:path'

const bin = path.resolve(import.meta.dirname, '..', '..', 'bin', 'toolgate.mjs')

export interface CliResult { code: number | null; stdout: string; stderr: string }

/** Run a command to completion, capturing its output. */
export function runProcess(cmd: string, args: string[], opts: { cwd?: string; env?: Record<string, string>; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(opts.input ?? '')
  })
}

/** Run the real `toolgate` binary. */
export function runCli(args: string[], env: Record<string, string> = {}, input?: string): Promise<CliResult> {
  return runProcess(process.execPath, [bin, ...args], { env, input })
}
