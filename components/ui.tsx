import Link from 'next/link'
import type { ComponentProps } from 'react'

/** Small shared building blocks, so every page looks and behaves the same. */
const buttonStyles = {
  primary: 'bg-slate-900 text-white hover:bg-slate-700 dark:bg-slate-100 dark:text-slate-900 dark:hover:bg-slate-300',
  secondary: 'border border-slate-300 bg-white text-slate-800 hover:bg-slate-100 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800',
  danger: 'border border-red-300 bg-white text-red-700 hover:bg-red-50 dark:border-red-800 dark:bg-slate-900 dark:text-red-300 dark:hover:bg-red-950',
} as const
export type ButtonVariant = keyof typeof buttonStyles

export const buttonClass = (variant: ButtonVariant = 'secondary') =>
  `inline-flex items-center justify-center gap-1 rounded px-3 py-1.5 text-sm font-medium disabled:cursor-not-allowed disabled:opacity-50 ${buttonStyles[variant]}`

export function Button({ variant = 'secondary', className = '', ...props }: ComponentProps<'button'> & { variant?: ButtonVariant }) {
  return <button type="button" {...props} className={`${buttonClass(variant)} ${className}`} />
}

export function LinkButton({ variant = 'secondary', className = '', ...props }: ComponentProps<typeof Link> & { variant?: ButtonVariant }) {
  return <Link {...props} className={`${buttonClass(variant)} ${className}`} />
}

export function PageHeader({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <div className="mb-6">
      <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
      {children && <div className="mt-1 text-sm text-slate-600 dark:text-slate-400">{children}</div>}
    </div>
  )
}

export function Card({ title, children, className = '' }: { title?: React.ReactNode; children: React.ReactNode; className?: string }) {
  return (
    <section className={`rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900 ${className}`}>
      {title && <h2 className="mb-3 text-base font-semibold">{title}</h2>}
      {children}
    </section>
  )
}

export function Empty({ children }: { children: React.ReactNode }) {
  return <p className="rounded border border-dashed border-slate-300 px-3 py-6 text-center text-sm text-slate-500 dark:border-slate-700 dark:text-slate-400">{children}</p>
}

const tones = {
  good: 'bg-emerald-100 text-emerald-900 dark:bg-emerald-900/60 dark:text-emerald-100',
  warn: 'bg-amber-100 text-amber-900 dark:bg-amber-900/60 dark:text-amber-100',
  bad: 'bg-red-100 text-red-900 dark:bg-red-900/60 dark:text-red-100',
  info: 'bg-sky-100 text-sky-900 dark:bg-sky-900/60 dark:text-sky-100',
  muted: 'bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-300',
} as const
export type Tone = keyof typeof tones

export function Pill({ tone = 'muted', children, title }: { tone?: Tone; children: React.ReactNode; title?: string }) {
  return <span title={title} className={`inline-flex items-center whitespace-nowrap rounded px-1.5 py-0.5 text-xs font-medium ${tones[tone]}`}>{children}</span>
}

export const inputClass = 'rounded border border-slate-300 bg-white px-2 py-1.5 text-sm dark:border-slate-700 dark:bg-slate-950'

/** A table wider than a phone: it scrolls sideways in its own box (by keyboard too), and says so where it does. */
export function WideTable({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <>
      <p className="mb-1 text-xs text-slate-500 md:hidden dark:text-slate-400">Scroll the table sideways for every column →</p>
      <div role="region" aria-label={label} tabIndex={0} className="overflow-x-auto">{children}</div>
    </>
  )
}
