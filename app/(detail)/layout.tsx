/**
 * Pages about one thing (a request, a token) that answer 404 when it does not exist. They share
 * the dashboard's shell but sit outside its loading boundary (app/(dashboard)/loading.tsx): a
 * streamed response sends its status with its first byte, so under that boundary notFound()
 * could only ever answer 200. Here the page is rendered before the status is sent.
 */
export { default } from '../(dashboard)/layout'

export const dynamic = 'force-dynamic'
