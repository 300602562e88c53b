import { spawn } from 'node:child_process'
import path from 'node:path'

const bin = path.resolve(import.meta.dirname, '..', '..', 'bin', 'toolgate.mjs')

export interface CliResult { code: number | null; stdout: string; stderr: string }

/** Run the real `toolgate` binary. */
export function runCli(args: string[], env: Record<string, string> = {}, input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(input ?? '')
  })
}
