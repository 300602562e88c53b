'use client'

import { useEffect, useState } from 'react'

/** Ticks once a second: a countdown that moves without a refetch. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(t)
  }, [])
  return now
}

/** How long the agent still waits for this call's answer; after that, what the wait turned into. */
export function AgentWait({ until, expires }: { until: string; expires: string }) {
  const left = Math.ceil((Date.parse(until) - useNow()) / 1000)
  return left > 0
    ? <span data-testid="agent-wait" data-seconds={left} className="font-medium text-amber-800 dark:text-amber-200">the agent waits {left} s more for your answer</span>
    : <span data-testid="agent-wait" data-seconds={0} className="text-slate-700 dark:text-slate-200">the agent stopped waiting (it was told “held”); the call can still be decided until {expires.replace('T', ' ').slice(0, 19)} UTC</span>
}
