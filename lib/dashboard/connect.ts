/**
 * What an operator pastes into an MCP client to connect it to toolgate, filled with the agent
 * token and the address the dashboard is served at (the same origin answers /mcp). Pure: the
 * Connect page renders it in the browser, where a token just created is at hand.
 */
export const REVISIONS = { legacy: '2025-11-25', modern: '2026-07-28' } as const
export type Revision = keyof typeof REVISIONS

export interface ClientSnippet {
  id: string
  client: string
  /** where it goes, e.g. ~/.cursor/mcp.json */
  where: string
  /** the MCP revision the client speaks to toolgate (toolgate answers both) */
  revision: string
  text: string
}

/** One JSON-RPC request over plain HTTP, as a client of that revision sends it. */
export interface HttpRequest { headers: Record<string, string>; body: Record<string, unknown> }

const json = (v: unknown) => JSON.stringify(v, null, 2)
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/**
 * A stateless request of either revision. 2026-07-28 names the method in `Mcp-Method` and, for a
 * tools/call, the tool in `Mcp-Name` (SEP-2243: the SDK refuses a call whose header is missing
 * or disagrees with params.name), and carries the revision in the request's `_meta`.
 */
export function httpRequest(revision: Revision, token: string, id: number, method: string, params: Record<string, unknown> = {}): HttpRequest {
  const headers: Record<string, string> = {
    Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': REVISIONS[revision],
  }
  if (revision === 'legacy') return { headers, body: { jsonrpc: '2.0', id, method, params } }
  headers['Mcp-Method'] = method
  if (method === 'tools/call' && typeof params.name === 'string') headers['Mcp-Name'] = params.name
  const meta = { 'io.modelcontextprotocol/protocolVersion': REVISIONS.modern, 'io.modelcontextprotocol/clientCapabilities': {} }
  return { headers, body: { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } } }
}

export const curlOf = (url: string, r: HttpRequest) =>
  [`curl -s ${shellQuote(url)}`, ...Object.entries(r.headers).map(([k, v]) => `  -H ${shellQuote(`${k}: ${v}`)}`), `  -d ${shellQuote(JSON.stringify(r.body))}`].join(' \\\n')

/** The requests the generic HTTP snippet shows for one revision: list the tools, then call one. */
export const genericRequests = (revision: Revision, token: string, tool: string) => [
  httpRequest(revision, token, 1, 'tools/list'),
  httpRequest(revision, token, 2, 'tools/call', { name: tool, arguments: {} }),
]

/** The snippets for the common clients: Claude Desktop and Code, Cursor, VS Code, and plain HTTP in both revisions. */
export function clientSnippets({ url, token, tool }: { url: string; token: string; tool: string }): ClientSnippet[] {
  const auth = `Bearer ${token}`
  return [
    {
      id: 'claude-desktop', client: 'Claude Desktop', where: 'claude_desktop_config.json (Settings → Developer → Edit Config), through mcp-remote', revision: REVISIONS.legacy,
      // the header sits in env: some clients split args at spaces
      text: json({ mcpServers: { toolgate: { command: 'npx', args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${AUTH_HEADER}'], env: { AUTH_HEADER: auth } } } }),
    },
    {
      id: 'claude-code', client: 'Claude Code', where: 'a terminal, in the project that should use it', revision: `${REVISIONS.legacy} (negotiated)`,
      text: `claude mcp add --transport http toolgate ${shellQuote(url)} --header ${shellQuote(`Authorization: ${auth}`)}`,
    },
    {
      id: 'cursor', client: 'Cursor', where: '~/.cursor/mcp.json (or .cursor/mcp.json in a project)', revision: `${REVISIONS.legacy} (negotiated)`,
      text: json({ mcpServers: { toolgate: { url, headers: { Authorization: auth } } } }),
    },
    {
      id: 'vscode', client: 'VS Code', where: '.vscode/mcp.json in the workspace', revision: `${REVISIONS.legacy} (negotiated)`,
      text: json({ servers: { toolgate: { type: 'http', url, headers: { Authorization: auth } } } }),
    },
    ...(['modern', 'legacy'] as const).map((rev) => ({
      id: `http-${REVISIONS[rev]}`, client: `Plain HTTP, ${REVISIONS[rev]}`, where: 'any HTTP client: list the tools, then call one', revision: REVISIONS[rev],
      text: genericRequests(rev, token, tool).map((r) => curlOf(url, r)).join('\n\n'),
    })),
  ]
}
