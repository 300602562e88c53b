import type { Metadata } from 'next'
import { connection } from 'next/server'
import { SessionKeyFetch } from '@/components/session-key'
import './globals.css'

export const metadata: Metadata = { title: { default: 'toolgate', template: '%s · toolgate' }, description: 'MCP tool availability, before a token is spent.' }

// Every page is rendered per request, even the 404: its scripts need the nonce of the response's CSP (proxy.ts).
export default async function RootLayout({ children }: { children: React.ReactNode }) {
  await connection()
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100"><SessionKeyFetch />{children}</body>
    </html>
  )
}
