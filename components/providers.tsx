'use client'

import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { useState } from 'react'

/** One QueryClient per browser tab (created in state so it survives re-renders, not shared across requests). */
export function Providers({ children }: { children: React.ReactNode }) {
  const [client] = useState(() => new QueryClient({ defaultOptions: { queries: { staleTime: 1000, retry: 1, refetchOnWindowFocus: false } } }))
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>
}
