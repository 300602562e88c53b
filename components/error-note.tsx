/** A failure shown as "why" and "fix", never a bare red badge. */
export function ErrorNote({ error, fix }: { error: string; fix?: string }) {
  return (
    <div role="alert" className="rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
      <p><span className="font-semibold">Why: </span>{error}</p>
      {fix && <p className="mt-1"><span className="font-semibold">Fix: </span>{fix}</p>}
    </div>
  )
}
