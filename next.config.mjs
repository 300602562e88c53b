/** @type {import('next').NextConfig} */
const nextConfig = {
  // NEXT_DIST_DIR lets parallel builds (tests, benchmarks) keep separate outputs
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // native module: load it from node_modules at run time instead of bundling it
  serverExternalPackages: ['better-sqlite3'],
  poweredByHeader: false,
}

export default nextConfig
