#!/usr/bin/env node
// The toolgate CLI. The TypeScript sources are bundled with esbuild on first use and again
// whenever they change (cached under node_modules/.cache), so `npx toolgate` needs no build
// step and starts in a fraction of the time a per-file TypeScript loader takes.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
process.env.TOOLGATE_ROOT ??= root

function fingerprint() {
  const h = createHash('sha1')
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (/\.(ts|json)$/.test(e.name)) {
        const s = statSync(p)
        h.update(`${p}:${s.mtimeMs}:${s.size};`)
      }
    }
  }
  walk(path.join(root, 'lib'))
  walk(path.join(root, 'db'))
  return h.digest('hex').slice(0, 16)
}

const cacheDir = path.join(root, 'node_modules', '.cache', 'toolgate')
const bundle = path.join(cacheDir, `cli-${fingerprint()}.mjs`)
if (!existsSync(bundle)) {
  const { buildSync } = await import('esbuild')
  mkdirSync(cacheDir, { recursive: true })
  // earlier bundles only: a .tmp is another run building this one right now
  for (const old of readdirSync(cacheDir)) if (/^cli-.*\.mjs$/.test(old)) rmSync(path.join(cacheDir, old), { force: true })
  const tmp = `${bundle}.${process.pid}.tmp`
  buildSync({
    entryPoints: [path.join(root, 'lib', 'cli', 'main.ts')], outfile: tmp, absWorkingDir: root,
    bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'error',
    // the CLI is a server: modules marked server-only belong in it (the marker guards client bundles)
    alias: { 'server-only': path.join(root, 'node_modules', 'server-only', 'empty.js') },
  })
  renameSync(tmp, bundle) // atomic: a concurrent run sees the whole file or none
}
await import(pathToFileURL(bundle).href)
