#!/usr/bin/env node
// The toolgate CLI. Runs the TypeScript sources directly (tsx), so `npx toolgate` works in the repo.
import path from 'node:path'
import { fileURLToPath } from 'node:url'

process.env.TOOLGATE_ROOT ??= path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const { register } = await import('tsx/esm/api')
register()
await import('../lib/cli/main.ts')
