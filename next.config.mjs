/** @type {import('next').NextConfig} */
const nextConfig = {
  // NEXT_DIST_DIR lets parallel builds (tests, benchmarks) keep separate outputs
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // native module: load it from node_modules at run time instead of bundling it
  serverExternalPackages: ['better-sqlite3'],
  poweredByHeader: false,
  // `toolgate serve`'s first-start build skips the type check (a user's first start should not
  // wait for it); `npm run build` and `npm test` keep it
  typescript: { ignoreBuildErrors: process.env.TOOLGATE_SKIP_TYPECHECK === '1' },
}

export default nextConfig
