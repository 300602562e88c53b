/** @type {import('next').NextConfig} */
const nextConfig = {
  // native module: load it from node_modules at run time instead of bundling it
  serverExternalPackages: ['better-sqlite3'],
  poweredByHeader: false,
}

export default nextConfig
