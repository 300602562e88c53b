'use client'

import Link from 'next/link'
import { useState } from 'react'
import type { ToolResult } from '@/lib/preflight/evaluate'
import type { RowDetail } from '@/lib/dashboard/row-details'
import type { Fix } from '@/lib/dashboard/schemas'
import { fixFor } from '@/lib/dashboard/fixes'
import { Button, LinkButton, Pill } from '@/components/ui'
import { LoginButton } from '@/components/servers/login-button'
import { ToolReviewView } from '@/components/approvals/tool-review'
import { Exposure, shownPins } from '@/components/servers/exposure'

interface Props {
  result: ToolResult
  detail: RowDetail | undefined
  requestId: string
  token: string | null
  busy: boolean
  onFix: (fix: Fix) => void
  onRecheck: () => void
  onReplaceId: (from: string, to: string) => void
}

/** One id's verdict: status, reason, retryable, detail, remediation, suggestions and the button that fixes it. */
export function ResultRow({ result: r, detail, requestId, token, busy, onFix, onRecheck, onReplaceId }: Props) {
  const [reviewing, setReviewing] = useState(false)
  const fix = fixFor(r, token)
  const rowId = `row-${r.id}`
  return (
    <>
      <tr data-testid={rowId} data-status={r.status} data-reason={r.status === 'unavailable' ? r.reason : ''} className="border-t border-slate-200 align-top dark:border-slate-800">
        <th scope="row" className="py-2 pr-3 text-left font-mono text-xs font-medium break-all">{r.id}</th>
        <td className="py-2 pr-3"><Pill tone={r.status === 'ready' ? 'good' : r.retryable ? 'warn' : 'bad'}>{r.status}</Pill></td>
        <td className="py-2 pr-3 font-mono text-xs">{r.status === 'unavailable' ? r.reason : '—'}</td>
        <td className="py-2 pr-3 text-xs">{r.status === 'unavailable' ? (r.retryable ? 'yes' : 'no') : '—'}</td>
        <td className="py-2 pr-3 text-xs">
          {r.status === 'unavailable' ? (
            <>
              <p>{r.detail}</p>
              <p className="mt-1 text-slate-600 dark:text-slate-400"><span className="font-semibold">Fix: </span>{r.remediation}</p>
              {r.did_you_mean && (
                <p className="mt-1">Did you mean{' '}
                  {r.did_you_mean.map((s) => (
                    <button key={s} type="button" onClick={() => onReplaceId(r.id, s)} aria-label={`Replace ${r.id} with ${s}`}
                      className="mr-1 rounded bg-sky-100 px-1.5 py-0.5 font-mono text-sky-900 hover:bg-sky-200 dark:bg-sky-900 dark:text-sky-100">{s}</button>
                  ))}?
                </p>
              )}
            </>
          ) : r.hash ? <span className="font-mono text-[11px] break-all text-slate-500">{r.hash}</span> : null}
        </td>
        <td className="py-2 pr-3">
          <div className="flex flex-wrap gap-1.5">
            {(fix?.kind === 'approve' || fix?.kind === 'release' || (fix?.kind === 'run' && detail?.kind === 'confirm')) && (
              <Button aria-expanded={reviewing} onClick={() => setReviewing(!reviewing)}>{reviewing ? 'Hide' : fix.label}</Button>
            )}
            {fix?.kind === 'run' && detail?.kind !== 'confirm' && <Button variant="primary" disabled={busy} onClick={() => onFix(fix.fix)}>{fix.label}</Button>}
            {fix?.kind === 'link' && <LinkButton href={fix.href}>{fix.label}</LinkButton>}
            {fix?.kind === 'login' && <LoginButton server={fix.server} requestId={requestId} label={fix.label} onAlreadyAuthorized={onRecheck} />}
            {fix?.kind === 'recheck' && <Button disabled={busy} onClick={onRecheck}>{fix.label}</Button>}
          </div>
        </td>
        <td className="py-2 text-xs"><Link className="text-sky-700 underline dark:text-sky-300" href={`/activity/${requestId}`}>timeline</Link></td>
      </tr>
      {reviewing && fix && detail && (
        <tr className="bg-slate-50 dark:bg-slate-950">
          <td colSpan={7} className="p-3">
            {fix.kind === 'approve' && detail.kind === 'review' && (
              <>
                <ToolReviewView review={detail.review} />
                <div className="mt-3">
                  <Button variant="primary" disabled={busy} onClick={() => onFix({ kind: 'approve_tool', id: fix.id, hash: detail.review.pin ?? '' })}>Approve this definition</Button>
                </div>
              </>
            )}
            {fix.kind === 'release' && detail.kind === 'exposure' && (
              <>
                <Exposure detail={detail} />
                <div className="mt-3">
                  <Button variant="primary" disabled={busy} onClick={() => onFix({ kind: 'release_server', server: fix.server, shown: shownPins(detail) })}>{`Release server ${fix.server}`}</Button>
                </div>
              </>
            )}
            {fix.kind === 'run' && detail.kind === 'confirm' && (fix.fix.kind === 'enable_tool' || fix.fix.kind === 'allow_tool') && (
              <div role="alertdialog" aria-label={`Confirm: ${fix.label}`}>
                <p className="text-sm">{detail.message}</p>
                <div className="mt-2 flex gap-2">
                  <Button variant="danger" disabled={busy} onClick={() => onFix({ ...fix.fix, confirm: true } as Fix)}>{`Yes, ${fix.label.toLowerCase()}`}</Button>
                  <Button onClick={() => setReviewing(false)}>Cancel</Button>
                </div>
              </div>
            )}
          </td>
        </tr>
      )}
    </>
  )
}
