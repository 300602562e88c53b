import { readFileSync, unwatchFile, watchFile } from 'node:fs'
import path from 'node:path'
import { buildDir } from '@/lib/core/paths'

/** The build marker: Next.js writes BUILD_ID last, so its presence means a whole build. */
export const buildIdFile = () => path.join(buildDir(), 'BUILD_ID')

const readBuildId = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8').trim()
  } catch {
    return null
  }
}

export interface BuildWatch {
  /** why pages cannot be served from this process any more, or null while its build is in place */
  broken: () => string | null
  stop: () => void
}

/**
 * Watch the build this process serves. Another `next build` into the same folder (a second
 * checkout's tests, `serve --rebuild` elsewhere) replaces the files under the running server and
 * every page then fails with an error that says nothing about why: say it once in the log, and
 * let the caller answer pages with the reason instead.
 */
export function watchBuild(onBroken: (why: string) => void, intervalMs = 2_000): BuildWatch {
  const file = buildIdFile()
  const served = readBuildId(file)
  let why: string | null = null
  const check = () => {
    const now = readBuildId(file)
    if (why || now === served) return
    why = now === null
      ? `the web app's build in ${path.dirname(file)} was removed under this running toolgate`
      : `the web app's build in ${path.dirname(file)} was replaced under this running toolgate (BUILD_ID ${served} → ${now}): another \`next build\` wrote the same folder`
    onBroken(why)
  }
  watchFile(file, { interval: intervalMs, persistent: false }, check)
  return { broken: () => why, stop: () => unwatchFile(file, check) }
}
