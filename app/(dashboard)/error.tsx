'use client' // error boundaries are client components

import { ErrorNote } from '@/components/error-note'
import { Button } from '@/components/ui'

/** A page that could not be rendered says why and what to do, and offers a retry. */
export default function DashboardError({ error, retry }: { error: unknown; retry: () => void }) {
  const digest = error instanceof Error && 'digest' in error ? String(error.digest) : undefined
  return (
    <div className="max-w-2xl space-y-3">
      <h1 className="text-xl font-semibold">This page could not be shown</h1>
      <ErrorNote
        error={`toolgate could not read its state to render this page${digest ? ` (server log reference ${digest})` : ''}.`}
        fix="Check that the state database (TOOLGATE_DB) is reachable and not locked by another process, then try again. The server log has the details." />
      <Button variant="primary" onClick={() => retry()}>Try again</Button>
    </div>
  )
}
