#!/usr/bin/env node
// The toolgate CLI. The TypeScript sources are bundled with esbuild once (npm install runs
// `toolgate --version`, which builds it) and again only after they change, cached under
// node_modules/.cache. The bundle is split per command: a call loads the command table and
// the one command it runs, so --help and --version load no database driver, and no call
// waits for a build unless its sources changed.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
process.env.TOOLGATE_ROOT ??= root

/** The sources' names, sizes and times: a stat per file, no reads (a few ms for the whole tree). */
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
  h.update(statSync(fileURLToPath(import.meta.url)).mtimeMs.toString()) // this file decides how it is built
  return h.digest('hex').slice(0, 16)
}

const cacheDir = path.join(root, 'node_modules', '.cache', 'toolgate')
const bundle = path.join(cacheDir, `cli-${fingerprint()}`)
const entry = path.join(bundle, 'main.js')

// zod re-exports its ~50 message locales (360 KB of the bundle's 1.3 MB) as a namespace nobody
// here reads; the CLI compiles only English, which zod uses by default
const englishZod = {
  name: 'english-zod',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) => (args.importer.includes(`${path.sep}zod${path.sep}`) ? { path: path.join(args.resolveDir, path.dirname(args.path), 'en.js'), namespace: 'zod-en' } : undefined))
    b.onLoad({ filter: /.*/, namespace: 'zod-en' }, (args) => ({ contents: `export { default as en } from ${JSON.stringify(args.path)}`, resolveDir: path.dirname(args.path) }))
  },
}

async function build() {
  const { build } = await import('esbuild')
  mkdirSync(cacheDir, { recursive: true })
  const tmp = `${bundle}.${process.pid}.tmp`
  await build({
    entryPoints: { main: path.join(root, 'lib', 'cli', 'main.ts'), 'heavy-worker': path.join(root, 'lib', 'server', 'heavy-worker.ts') }, outdir: tmp, absWorkingDir: root,
    bundle: true, splitting: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'error',
    // packages are bundled too (a few chunks load faster than hundreds of small files), but for the
    // native driver, pg (CommonJS that requires node builtins at run time) and Next.js, which load their own files at run time, the MCP SDKs, which
    // only the commands that speak MCP load, and the OpenTelemetry SDK (gRPC and protobuf among
    // it), which only a server with telemetry on loads; the small API is bundled
    external: ['better-sqlite3', 'pg', 'next', 'next/*', 'esbuild', '@modelcontextprotocol/*', '@opentelemetry/sdk-*', '@opentelemetry/exporter-*', '@opentelemetry/context-*'],
    chunkNames: 'chunk-[hash]',
    plugins: [englishZod],
    // the CLI is a server: modules marked server-only belong in it (the marker guards client bundles)
    alias: { 'server-only': path.join(root, 'node_modules', 'server-only', 'empty.js') },
  })
  try {
    renameSync(tmp, bundle) // atomic: a concurrent run sees the whole bundle or none
  } catch {
    rmSync(tmp, { recursive: true, force: true }) // another run finished the same bundle first
  }
  // Earlier bundles go once they are an hour old: a process started on one moments ago still
  // loads its command's part from it.
  const hourAgo = Date.now() - 3_600_000
  for (const old of readdirSync(cacheDir)) {
    const p = path.join(cacheDir, old)
    if (p === bundle || !/^cli-/.test(old)) continue
    // another run may be pruning the same folder at once: a bundle already gone is no error
    try {
      if (statSync(p).mtimeMs < hourAgo) rmSync(p, { recursive: true, force: true })
    } catch (e) {
      if (e.code !== 'ENOENT') throw e
    }
  }
}

if (!existsSync(entry)) await build()
await import(pathToFileURL(entry).href)
