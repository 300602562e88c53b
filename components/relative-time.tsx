'use client'

import { useEffect, useState } from 'react'

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [['day', 86_400_000], ['hour', 3_600_000], ['minute', 60_000], ['second', 1000]]

function relative(ms: number, now: number): string {
  const diff = ms - now
  const fmt = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })
  for (const [unit, size] of UNITS) if (Math.abs(diff) >= size || unit === 'second') return fmt.format(Math.round(diff / size), unit)
  return ''
}

/**
 * "3 minutes ago", with the absolute time and the operator's time zone on hover. The server
 * knows neither the operator's zone nor when the page is read, so the first render shows the
 * instant in UTC and the browser turns it relative once it runs (and keeps it current).
 */
export function RelativeTime({ iso, className = '' }: { iso: string; className?: string }) {
  const [now, setNow] = useState<number | null>(null)
  useEffect(() => {
    setNow(Date.now())
    const t = setInterval(() => setNow(Date.now()), 30_000)
    return () => clearInterval(t)
  }, [])
  const at = Date.parse(iso)
  const absolute = now === null ? `${iso.slice(0, 19).replace('T', ' ')} UTC` : new Date(at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'long' })
  return <time dateTime={iso} title={absolute} className={className}>{now === null ? absolute : relative(at, now)}</time>
}
