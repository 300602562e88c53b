import path from 'node:path'
import { envVar } from './config'

/** The project root: set by bin/toolgate.mjs for the CLI; the cwd under `next start`. */
export function projectRoot(): string {
  return envVar('TOOLGATE_ROOT') ?? process.cwd()
}

/** TOOLGATE_DB (relative to the cwd), else ./data/toolgate.db in the project. */
export function defaultDbFile(): string {
  const fromEnv = envVar('TOOLGATE_DB')
  return fromEnv ? path.resolve(fromEnv) : path.join(projectRoot(), 'data', 'toolgate.db')
}

/** Where a database's secret key file is: beside it (db/secrets.ts reads it; db/client.ts keeps it private). */
export const keyFileOf = (dbFile: string) => `${dbFile}.key`

/** The web app's build folder: $NEXT_DIST_DIR (npm test builds into .next-test), else .next. */
export const buildDir = () => path.resolve(projectRoot(), envVar('NEXT_DIST_DIR') || '.next')
