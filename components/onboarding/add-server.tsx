'use client'

import Link from 'next/link'
import { useState, useTransition } from 'react'
import { addServerAction, importServersAction } from '@/lib/actions/onboarding'
import { ErrorNote } from '@/components/error-note'
import { Button, Card, inputClass } from '@/components/ui'

type Failure = { error: string; fix: string }
const serverLink = (name: string) => `/servers/${encodeURIComponent(name)}#release`

const EXAMPLE = `{
  "mcpServers": {
    "notes": { "command": "node", "args": ["demo/upstreams/notes.mjs"] },
    "search": { "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer …" } }
  }
}`

/** What was added, and the next step: a quarantined server is inspected, reviewed and released on its page. */
function Added({ names, trusted, refused }: { names: string[]; trusted: boolean; refused: { name: string; error: string }[] }) {
  return (
    <div role="status" className="mt-3 space-y-1 rounded border border-emerald-300 bg-emerald-50 p-3 text-sm dark:border-emerald-800 dark:bg-emerald-950">
      {names.length > 0 && (
        <>
          <p>Added {names.length} server{names.length === 1 ? '' : 's'}{trusted ? ' (trusted: its first listing becomes the approved baseline)' : ', quarantined: none of its tools is served until you release it.'}</p>
          <ul className="list-disc pl-5">
            {names.map((n) => <li key={n}><Link className="font-mono text-sky-700 underline dark:text-sky-300" href={serverLink(n)}>{n}</Link>{trusted ? '' : ' — next: Inspect, review, release'}</li>)}
          </ul>
        </>
      )}
      {refused.length > 0 && (
        <ul aria-label="Not imported" className="list-disc pl-5 text-red-900 dark:text-red-200">
          {refused.map((r) => <li key={r.name}><span className="font-mono">{r.name}</span> not imported: {r.error}</li>)}
        </ul>
      )}
    </div>
  )
}

function Trusted({ value, onChange }: { value: boolean; onChange: (v: boolean) => void }) {
  return (
    <label className="flex items-start gap-2 text-sm">
      <input type="checkbox" className="mt-1" checked={value} onChange={(e) => onChange(e.target.checked)} />
      <span>Trusted: skip quarantine (its first listing is approved as it is). Leave off to inspect and review it first.</span>
    </label>
  )
}

/** Add one server by filling a form: a program to start (stdio) or an MCP endpoint (Streamable HTTP). */
function AddForm() {
  const [kind, setKind] = useState<'stdio' | 'http'>('stdio')
  const [name, setName] = useState('')
  const [command, setCommand] = useState('')
  const [args, setArgs] = useState('')
  const [url, setUrl] = useState('')
  const [trusted, setTrusted] = useState(false)
  const [failure, setFailure] = useState<Failure | null>(null)
  const [added, setAdded] = useState<{ name: string; trusted: boolean } | null>(null)
  const [pending, start] = useTransition()
  return (
    <Card title="Add a server">
      <form aria-label="Add a server" className="space-y-3" onSubmit={(e) => {
        e.preventDefault()
        start(async () => {
          const input = kind === 'stdio'
            ? { kind, name, command, args: args.split('\n').map((a) => a.trim()).filter(Boolean), trusted }
            : { kind, name, url, trusted }
          const r = await addServerAction(input)
          setFailure(r.ok ? null : r)
          if (r.ok) { setAdded({ name: r.data.name, trusted: !r.data.quarantined }); setName(''); setCommand(''); setArgs(''); setUrl('') }
        })
      }}>
        <label className="block text-sm font-medium">Name
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="notes" className={`mt-1 block w-full ${inputClass}`} />
        </label>
        <fieldset>
          <legend className="text-sm font-medium">Transport</legend>
          <div className="mt-1 flex gap-4 text-sm">
            <label className="inline-flex items-center gap-1.5"><input type="radio" name="kind" checked={kind === 'stdio'} onChange={() => setKind('stdio')} /> A program (stdio)</label>
            <label className="inline-flex items-center gap-1.5"><input type="radio" name="kind" checked={kind === 'http'} onChange={() => setKind('http')} /> A URL (Streamable HTTP)</label>
          </div>
        </fieldset>
        {kind === 'stdio' ? (
          <>
            <label className="block text-sm font-medium">Command
              <input value={command} onChange={(e) => setCommand(e.target.value)} placeholder="node" className={`mt-1 block w-full font-mono ${inputClass}`} />
            </label>
            <label className="block text-sm font-medium">Arguments (one per line)
              <textarea value={args} onChange={(e) => setArgs(e.target.value)} rows={3} placeholder="demo/upstreams/notes.mjs" className={`mt-1 block w-full font-mono ${inputClass}`} />
            </label>
            <p className="text-xs text-slate-600 dark:text-slate-400">It starts in toolgate&apos;s folder. Environment values are secrets: set them on the server&apos;s page once it is added, or paste them in an mcpServers JSON.</p>
          </>
        ) : (
          <label className="block text-sm font-medium">URL
            <input value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://mcp.example.com/mcp" className={`mt-1 block w-full font-mono ${inputClass}`} />
          </label>
        )}
        <Trusted value={trusted} onChange={setTrusted} />
        <Button type="submit" variant="primary" disabled={pending}>{pending ? 'Adding…' : 'Add server'}</Button>
        {failure && <ErrorNote error={failure.error} fix={failure.fix} />}
      </form>
      {added && <Added names={[added.name]} trusted={added.trusted} refused={[]} />}
    </Card>
  )
}

/** Import the servers of a pasted mcpServers document (Claude Desktop, Cursor and VS Code write this format). */
function ImportForm() {
  const [json, setJson] = useState('')
  const [trusted, setTrusted] = useState(false)
  const [failure, setFailure] = useState<Failure | null>(null)
  const [result, setResult] = useState<{ imported: string[]; refused: { name: string; error: string }[]; trusted: boolean } | null>(null)
  const [pending, start] = useTransition()
  return (
    <Card title="Import an mcpServers JSON">
      <form aria-label="Import servers" className="space-y-3" onSubmit={(e) => {
        e.preventDefault()
        start(async () => {
          const r = await importServersAction({ json, trusted })
          setFailure(r.ok ? null : r)
          setResult(r.ok ? { ...r.data, trusted } : null)
          if (r.ok && r.data.refused.length === 0) setJson('')
        })
      }}>
        <label className="block text-sm font-medium">The document, as in claude_desktop_config.json or ~/.cursor/mcp.json
          <textarea value={json} onChange={(e) => setJson(e.target.value)} rows={8} placeholder={EXAMPLE} spellCheck={false} className={`mt-1 block w-full font-mono text-xs ${inputClass}`} />
        </label>
        <p className="text-xs text-slate-600 dark:text-slate-400">Every env and header value is stored as a secret, never shown again.</p>
        <Trusted value={trusted} onChange={setTrusted} />
        <Button type="submit" variant="primary" disabled={pending}>{pending ? 'Importing…' : 'Import servers'}</Button>
        {failure && <ErrorNote error={failure.error} fix={failure.fix} />}
      </form>
      {result && <Added names={result.imported} trusted={result.trusted} refused={result.refused} />}
    </Card>
  )
}

export function AddServers() {
  return (
    <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
      <AddForm />
      <ImportForm />
    </div>
  )
}
