'use client'

import Link from 'next/link'
import { useParams } from 'next/navigation'
import { Empty, PageHeader } from '@/components/ui'
import { REQUEST_ID_RE } from '@/lib/schemas/request-id'

/** `/activity/<request_id>` with nothing recorded under it : why, in the page's words. */
export default function RequestNotFound() {
  const requestId = decodeURIComponent(String(useParams<{ requestId: string }>().requestId ?? ''))
  return (
    <>
      <PageHeader title="Request story">
        <span className="font-mono">{requestId}</span> · <Link className="text-sky-700 underline dark:text-sky-300" href="/activity">all activity</Link>
      </PageHeader>
      <Empty>{REQUEST_ID_RE.test(requestId)
        ? 'No activity was recorded under this request id. Check the id (it is in X-Request-Id, the CLI output and every MCP facet). The dashboard\'s _meta preview is never recorded, so its request ids are not here.'
        : `"${requestId}" is not a request id: they are 1–256 letters, digits, "_" or "-".`}</Empty>
    </>
  )
}
