export default function Home() {
  return (
    <main className="mx-auto max-w-2xl p-8">
      <h1 className="text-2xl font-semibold">toolgate</h1>
      <p className="mt-2 text-slate-600 dark:text-slate-300">
        Is every tool this job needs ready — and if not, exactly why and what fixes it?
      </p>
      <p className="mt-4">
        REST: <code>POST /api/v1/preflight</code> with <code>X-API-Key</code> (operator) or{' '}
        <code>Authorization: Bearer &lt;agent token&gt;</code>. CLI: <code>npx toolgate tools preflight &lt;server:tool&gt;…</code>
      </p>
    </main>
  )
}
