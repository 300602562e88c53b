'use client' // error boundaries are client components

import './globals.css'

/**
 * The last resort: the root layout itself failed. It replaces the whole document, so it brings
 * its own <html> and says what to do in toolgate's words, not the framework's.
 */
export default function GlobalError({ error, retry }: { error: Error & { digest?: string }; retry: () => void }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        <main id="main" className="mx-auto max-w-xl px-4 py-16">
          <p className="font-semibold tracking-tight">toolgate</p>
          <h1 className="mt-4 text-2xl font-semibold tracking-tight">Something went wrong on the server</h1>
          <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">
            toolgate could not render this page{error.digest ? ` (server log reference ${error.digest})` : ''}. The server log has the details;
            check that the state database (TOOLGATE_DB) is reachable, then try again.
          </p>
          <div className="mt-6 flex gap-2">
            <button type="button" onClick={() => retry()} className="rounded bg-slate-900 px-3 py-1.5 text-sm font-medium text-white dark:bg-slate-100 dark:text-slate-900">Try again</button>
            <a href="/" className="rounded border border-slate-300 px-3 py-1.5 text-sm font-medium dark:border-slate-600">Overview</a>
          </div>
        </main>
      </body>
    </html>
  )
}
