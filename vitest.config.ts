import path from 'node:path'
import { defineConfig } from 'vitest/config'

/** No process outlives the file that started it, nor the run (tests/helpers/processes.ts). */
export const noLeftovers = {
  globalSetup: ['tests/helpers/no-leftovers-global.ts'],
  setupFiles: ['tests/helpers/no-leftovers-file.ts'],
}

export default defineConfig({
  resolve: {
    alias: {
      '@': path.resolve(import.meta.dirname),
      // tests run server code outside React's server environment; the marker guards client bundles only
      'server-only': path.resolve(import.meta.dirname, 'node_modules/server-only/empty.js'),
    },
  },
  test: {
    include: ['tests/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    ...noLeftovers,
  },
})
