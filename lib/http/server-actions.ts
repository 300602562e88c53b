import 'server-only'
import type { IncomingMessage } from 'node:http'
import { badRequest } from '@/lib/errors'
import { parseJson, readBody } from './json'

/** Where Next.js keeps per-request metadata; an `actionBody` there is read instead of the stream. */
const NEXT_REQUEST_META = Symbol.for('NextInternalRequestMeta')

/**
 * Server actions are public POST endpoints. Their bodies are checked here before Next.js decodes
 * them: at most 1 MiB (413), and — toolgate's actions only take plain values — a JSON text of
 * bounded depth (400 otherwise). The checked bytes are handed to Next.js, which then reads them
 * instead of the already-consumed stream.
 */
export async function checkServerActionBody(req: IncomingMessage): Promise<void> {
  const type = String(req.headers['content-type'] ?? '')
  if (!type.startsWith('text/plain')) throw badRequest('server actions take a JSON body (text/plain); this one was not')
  const body = await readBody(req)
  parseJson(body)
  const holder = req as unknown as Record<symbol, Record<string, unknown> | undefined>
  holder[NEXT_REQUEST_META] = { ...holder[NEXT_REQUEST_META], actionBody: body }
}

export const isServerAction = (req: IncomingMessage) => req.method === 'POST' && req.headers['next-action'] !== undefined

/** What Next.js names a server action with (hex; 42 characters in this version). */
const ACTION_ID = /^[0-9a-f]{1,128}$/i

/** Why a server action's Next-Action header cannot name one (Next.js never answers an empty one), or null. */
export function actionHeaderFault(req: IncomingMessage): string | null {
  return ACTION_ID.test(String(req.headers['next-action'])) ? null : 'the Next-Action header names no server action'
}
