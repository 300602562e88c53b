'use client'

import { RelativeTime } from './relative-time'

/** "approved by alice, 5 minutes ago": every decision names its person. */
export function DecidedBy({ verb, by, at }: { verb: string; by: string; at: string | null }) {
  return <span data-decided-by={by}>{verb} by <strong className="font-medium">{by}</strong>{at && <>, <RelativeTime iso={at} /></>}</span>
}
