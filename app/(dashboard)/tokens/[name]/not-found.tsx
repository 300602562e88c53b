'use client'

import Link from 'next/link'
import { useParams } from 'next/navigation'
import { Empty, PageHeader } from '@/components/ui'

/** `/tokens/<name>` for a token that does not exist: say so, and offer the list. */
export default function TokenNotFound() {
  const name = decodeURIComponent(String(useParams<{ name: string }>().name ?? ''))
  return (
    <>
      <PageHeader title={name} />
      <Empty>No agent token named “{name}” exists: it was revoked, renamed or never created. <Link className="underline" href="/tokens">All tokens</Link></Empty>
    </>
  )
}
