'use client'

import { useState } from 'react'
import type { ToolResult, UnavailableResult } from '@/lib/preflight/evaluate'
import type { RowDetail } from '@/lib/dashboard/row-details'
import type { RowView } from '@/lib/dashboard/preflight'
import type { Fix } from '@/lib/schemas/dashboard'
import { fixPermission } from '@/lib/dashboard/fix-permission'
import { can } from '@/lib/auth/roles'
import { Allowed, usePerson } from '@/components/operator-context'
import { Button, LinkButton, Pill } from '@/components/ui'
import { AskFirst } from '@/components/ask-first'
import { LoginButton } from '@/components/servers/login-button'
import { highRiskQuestion, ToolReviewView } from '@/components/approvals/tool-review'
import { Exposure } from '@/components/servers/exposure'
import { shownPins } from '@/lib/dashboard/exposure'
import { ToolId } from '@/components/tool-id'

interface Props {
  result: ToolResult
  view: RowView
  detail: RowDetail | undefined
  requestId: string
  busy: boolean
  onFix: (fix: Fix) => void
  onRecheck: () => void
  onReplaceId: (from: string, to: string) => void
}

// below md the table reads as one card per id: every cell on its own line, nothing cut off
const cell = 'py-2 pr-3 align-top max-md:block max-md:py-1 max-md:pr-0'

function Explanation({ r }: { r: UnavailableResult }) {
  return (
    <>
      <p>{r.detail}</p>
      <p className="mt-1 text-slate-600 dark:text-slate-300"><span className="font-semibold">Fix: </span>{r.remediation}</p>
    </>
  )
}

/**
 * One id's verdict: what the caller was told (status, reason, detail, remediation) and, when
 * checking as a token, the operator-tier cause beside it — then the one fix that can work.
 */
export function ResultRow({ result: r, view, detail, requestId, busy, onFix, onRecheck, onReplaceId }: Props) {
  const me = usePerson()
  const may = (kind: Fix['kind']) => me !== null && can(me.role, fixPermission[kind])
  const [reviewing, setReviewing] = useState(false)
  // a change with high-risk parts is approved only after saying so
  const { fix, cause } = view
  return (
    <>
      <tr data-testid={`row-${r.id}`} data-status={r.status} data-reason={r.status === 'unavailable' ? r.reason : ''}
        data-cause={cause?.status === 'unavailable' ? cause.reason : ''} className="border-t border-slate-200 dark:border-slate-800 max-md:block max-md:py-2">
        <th scope="row" className={`${cell} text-left font-mono text-xs font-medium md:whitespace-nowrap`}><ToolId id={r.id} /></th>
        <td className={cell}>
          <span className="inline-flex flex-wrap items-center gap-1.5">
            <Pill tone={r.status === 'ready' ? 'good' : r.retryable ? 'warn' : 'bad'}>{r.status}</Pill>
            {r.status === 'unavailable' && <code className="text-xs">{r.reason}</code>}
            {r.status === 'unavailable' && r.retryable && <span className="text-xs text-slate-600 dark:text-slate-300">retryable</span>}
          </span>
        </td>
        <td className={`${cell} text-xs`}>
          {cause?.status === 'unavailable' ? (
            <div data-testid={`cause-${r.id}`}>
              <p className="font-medium">
                Agent sees <code>{r.status === 'unavailable' ? r.reason : 'ready'}</code> — because <code>{cause.reason}</code> (operator tier):
              </p>
              <div className="mt-1 border-l-2 border-slate-300 pl-2 dark:border-slate-600"><Explanation r={cause} /></div>
            </div>
          ) : cause?.status === 'ready' ? (
            <p>The operator tier now sees this tool ready under the token&apos;s scope: the state changed since the check. Check again.</p>
          ) : r.status === 'unavailable' ? (
            <Explanation r={r} />
          ) : r.hash ? <span className="font-mono text-[11px] break-all text-slate-600 dark:text-slate-300">{r.hash}</span> : null}
          {r.status === 'unavailable' && r.did_you_mean && (
            <p className="mt-1">Did you mean{' '}
              {r.did_you_mean.map((s) => (
                <button key={s} type="button" onClick={() => onReplaceId(r.id, s)} aria-label={`Replace ${r.id} with ${s}`}
                  className="mr-1 rounded bg-sky-100 px-1.5 py-0.5 font-mono text-sky-900 hover:bg-sky-200 dark:bg-sky-900 dark:text-sky-100">{s}</button>
              ))}?
            </p>
          )}
        </td>
        <td className={cell}>
          <div className="flex flex-wrap gap-1.5">
            {(fix?.kind === 'approve' || fix?.kind === 'release' || (fix?.kind === 'run' && detail?.kind === 'confirm')) && (
              <Button aria-expanded={reviewing} aria-label={`${reviewing ? 'Hide' : fix.label}: ${r.id}`} onClick={() => setReviewing(!reviewing)}>{reviewing ? 'Hide' : fix.label}</Button>
            )}
            {fix?.kind === 'run' && detail?.kind !== 'confirm' && may(fix.fix.kind) && <Button variant="primary" disabled={busy} aria-label={`${fix.label}: ${r.id}`} onClick={() => onFix(fix.fix)}>{fix.label}</Button>}
            {fix?.kind === 'link' && <LinkButton href={fix.href} aria-label={`${fix.label} (for ${r.id})`}>{fix.label}</LinkButton>}
            {fix?.kind === 'login' && <LoginButton server={fix.server} requestId={requestId} label={fix.label} ariaLabel={`${fix.label}: ${fix.server} (for ${r.id})`} onAlreadyAuthorized={onRecheck} recheck />}
            {fix?.kind === 'recheck' && <Button disabled={busy} aria-label={`${fix.label}: ${r.id}`} onClick={onRecheck}>{fix.label}</Button>}
            {fix?.kind === 'advice' && <p data-testid={`advice-${r.id}`} className="max-w-xs text-xs text-slate-700 dark:text-slate-200">{fix.text}</p>}
          </div>
        </td>
      </tr>
      {reviewing && fix && detail && (
        <tr className="bg-slate-50 dark:bg-slate-950 max-md:block">
          <td colSpan={4} className="p-3 max-md:block">
            {fix.kind === 'approve' && detail.kind === 'review' && (
              <>
                <ToolReviewView review={detail.review} />
                <div className="mt-3">
                  <Allowed permission="approve">
                    <AskFirst question={highRiskQuestion(detail.review)} onConfirm={() => onFix({ kind: 'approve_tool', id: fix.id, hash: detail.review.pin ?? '' })}
                      label="Approve this definition" confirmLabel="Yes, approve this definition" variant="primary" confirmVariant="danger" disabled={busy} />
                  </Allowed>
                </div>
              </>
            )}
            {fix.kind === 'release' && detail.kind === 'exposure' && (
              <>
                <Exposure detail={detail} />
                <div className="mt-3">
                  <Allowed permission="approve"><Button variant="primary" disabled={busy} onClick={() => onFix({ kind: 'release_server', server: fix.server, shown: shownPins(detail) })}>{`Release server ${fix.server}`}</Button></Allowed>
                </div>
              </>
            )}
            {fix.kind === 'run' && detail.kind === 'confirm' && (fix.fix.kind === 'enable_tool' || fix.fix.kind === 'allow_tool') && (
              <div role="alertdialog" aria-label={`Confirm: ${fix.label}`}>
                <p className="text-sm">{detail.message}</p>
                <div className="mt-2 flex gap-2">
                  <Button variant="danger" disabled={busy || !may(fix.fix.kind)} onClick={() => onFix({ ...fix.fix, confirm: true } as Fix)}>{`Yes, ${fix.label.toLowerCase()}`}</Button>
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
