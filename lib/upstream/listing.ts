import { ProtocolError, ProtocolErrorCode, type Client } from '@modelcontextprotocol/client'
import { rawPageSchema as rawPage, rawToolsPageSchema as rawToolsPage } from '@/lib/schemas/upstream'
import { storedOfWire, wireOf, type WireDefinition } from '@/lib/core/definition'
import type { DiscoveredDefinition } from '@/lib/approvals/server-definitions'

/** Every tool of an upstream, following each nextCursor page, every served field kept as given. */
async function listAllTools(client: Client, timeoutMs: number): Promise<WireDefinition[]> {
  const all: WireDefinition[] = []
  let cursor: string | undefined
  do {
    const page = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, rawToolsPage, { timeout: timeoutMs })
    // the served fields only, each as given (through the stored shape, which names them all)
    for (const t of page.tools) all.push(wireOf(storedOfWire(t)))
    cursor = page.nextCursor
  } while (cursor)
  return all
}

/** A listing's pages are followed this far at most: a server cursoring forever is cut off, not followed. */
const MAX_DEFINITION_PAGES = 100

/** Every item of one of a server's listings (prompts/list, …), every page, each object kept as given. */
async function listAllOf(client: Client, method: string, key: string, timeoutMs: number): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = []
  let cursor: string | undefined
  for (let page = 0; page < MAX_DEFINITION_PAGES; page++) {
    let r: Record<string, unknown>
    try {
      r = await client.request({ method, params: cursor ? { cursor } : {} }, rawPage, { timeout: timeoutMs })
    } catch (e) {
      // offered as a capability, but not this listing (resources without templates): none of it
      if (e instanceof ProtocolError && e.code === ProtocolErrorCode.MethodNotFound) return all
      throw e
    }
    const items = r[key]
    if (Array.isArray(items)) for (const it of items) if (it && typeof it === 'object' && !Array.isArray(it)) all.push(it as Record<string, unknown>)
    cursor = typeof r.nextCursor === 'string' ? r.nextCursor : undefined
    if (!cursor) break
  }
  return all
}

/**
 * What a server gives agents besides its tools, each kept as given for review and pinning:
 * its instructions, its prompts, its resources and resource templates (where it offers them).
 */
async function listDefinitions(client: Client, timeoutMs: number): Promise<DiscoveredDefinition[]> {
  const caps = client.getServerCapabilities()
  const out: DiscoveredDefinition[] = []
  const instructions = client.getInstructions()
  if (instructions) out.push({ kind: 'instructions', key: '', definition: { instructions } })
  const keyed = (kind: DiscoveredDefinition['kind'], field: string) => (items: Record<string, unknown>[]) => {
    for (const definition of items) if (typeof definition[field] === 'string') out.push({ kind, key: definition[field] as string, definition })
  }
  if (caps?.prompts) keyed('prompt', 'name')(await listAllOf(client, 'prompts/list', 'prompts', timeoutMs))
  if (caps?.resources) {
    keyed('resource', 'uri')(await listAllOf(client, 'resources/list', 'resources', timeoutMs))
    keyed('resource_template', 'uriTemplate')(await listAllOf(client, 'resources/templates/list', 'resourceTemplates', timeoutMs))
  }
  return out
}

/** Everything a server offers, as one discovery stores it (whole, or not at all). */
export interface Offered { tools: WireDefinition[]; definitions: DiscoveredDefinition[] }

export async function listOffered(client: Client, timeoutMs: number): Promise<Offered> {
  return { tools: await listAllTools(client, timeoutMs), definitions: await listDefinitions(client, timeoutMs) }
}
