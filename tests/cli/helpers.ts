import { readFileSync } from 'node:fs'
import { spawn, type SpawnOptions } from 'node:child_process'
import path from 'node:path'
import { freshDb, demoStateFile } from '@/tests/helpers/db'
import { loadState } from '@/lib/state/load'
import type { CliResult } from '@/tests/helpers/cli'

export const bin = path.resolve(import.meta.dirname, '..', '..', 'bin', 'toolgate.mjs')

/** A demo database of its own, closed, so each test sees only its own changes. */
export async function demoDbFile(): Promise<string> {
  const { db, file } = freshDb()
  await loadState(db, JSON.parse(readFileSync(demoStateFile(), 'utf8')), 'test')
  db.$client.close()
  return file
}

/** Run the real binary with extra spawn options (another user, a clean environment). */
export function runCliAs(args: string[], opts: { env?: Record<string, string | undefined>; uid?: number; gid?: number; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const options: SpawnOptions = {
      env: Object.fromEntries(Object.entries({ ...process.env, ...opts.env }).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv,
      uid: opts.uid, gid: opts.gid, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'],
    }
    const child = spawn(process.execPath, [bin, ...args], options)
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (d) => (stdout += d))
    child.stderr!.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** stdout as JSON, with the whole result in the message when it is not. */
export function json<T = Record<string, unknown>>(r: CliResult): T {
  try {
    return JSON.parse(r.stdout) as T
  } catch {
    throw new Error(`not JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`)
  }
}
