/** Shown while a dashboard page reads state (streamed instantly on navigation). */
export default function Loading() {
  return (
    <div role="status" aria-label="Loading" className="animate-pulse space-y-4">
      <div className="h-7 w-64 rounded bg-slate-200 dark:bg-slate-800" />
      <div className="h-4 w-96 max-w-full rounded bg-slate-200 dark:bg-slate-800" />
      <div className="h-48 rounded-lg bg-slate-200 dark:bg-slate-800" />
    </div>
  )
}
