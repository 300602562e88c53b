// Demo upstream: "notes" (stdio MCP server on the official SDK), the demo's note store, kept in
// memory for one run. Its tools are the ones the demo state lists for notes, served as defined
// there (same pins), so the demo's approvals hold: export_notes waits for approval, share_note
// changed since it was approved, purge_notes is blocked, rebuild_index is denied by config.
// Whatever toolgate lets through really runs here; nothing leaves the machine.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { demoTools } from './demo-tools.mjs'

const tools = demoTools('notes')
const notes = new Map([
  ['welcome', { text: 'toolgate checks that every tool a job needs is ready before an agent spends a token.', tags: [] }],
  ['runbook', { text: 'If a preflight is blocked, follow the remediation on each row, then run it again.', tags: ['ops'] }],
])

const text = (t) => ({ content: [{ type: 'text', text: t }] })
const fail = (t) => ({ isError: true, ...text(t) })
const str = (v) => (typeof v === 'string' ? v : '')
const noteOr = (id, fn) => (notes.has(id) ? fn(notes.get(id)) : fail(`no note "${id}" (there are: ${[...notes.keys()].join(', ') || 'none'})`))

const calls = {
  read_note: ({ id }) => noteOr(str(id), (n) => text(n.text)),
  search_notes: ({ query }) => {
    const q = str(query).toLowerCase()
    const found = [...notes].filter(([id, n]) => id.includes(q) || n.text.toLowerCase().includes(q)).map(([id]) => id)
    return text(found.length ? found.join('\n') : `no note mentions "${q}"`)
  },
  write_note: ({ id, text: body }) => {
    const existed = notes.has(str(id))
    notes.set(str(id), { text: str(body), tags: notes.get(str(id))?.tags ?? [] })
    return text(`${existed ? 'updated' : 'created'} note "${str(id)}"`)
  },
  delete_note: ({ id }) => noteOr(str(id), () => (notes.delete(str(id)), text(`deleted note "${str(id)}"`))),
  tag_note: ({ id, tag }) => noteOr(str(id), (n) => (n.tags.push(str(tag)), text(`note "${str(id)}" tagged: ${n.tags.join(', ')}`))),
  export_notes: () => text(`${JSON.stringify(Object.fromEntries(notes))}\n(nothing left this machine)`),
  share_note: ({ id, cc }) => noteOr(str(id), () => text(`shared note "${str(id)}"${cc ? ` (copy to ${str(cc)})` : ''} (a demo: nothing left this machine)`)),
  purge_notes: () => {
    const n = notes.size
    notes.clear()
    return text(`deleted all ${n} notes`)
  },
  rebuild_index: () => text(`search index rebuilt over ${notes.size} notes`),
}

const server = new Server({ name: 'notes', version: '1.0.0' }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }))
server.setRequestHandler(CallToolRequestSchema, (req) => {
  const call = tools.some((t) => t.name === req.params.name) ? calls[req.params.name] : undefined
  return call ? call(req.params.arguments ?? {}) : fail(`notes has no tool "${req.params.name}"`)
})
await server.connect(new StdioServerTransport())
console.error('notes: ready')
