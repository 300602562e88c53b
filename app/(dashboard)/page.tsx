import { PageHeader } from '../../components/ui'
import { requireOperator } from '../../lib/dashboard/operator'

export default async function OverviewPage() {
  await requireOperator('/')
  return <PageHeader title="What needs an operator now" />
}
