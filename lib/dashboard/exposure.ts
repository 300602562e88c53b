import type { RowDetail } from './row-details'

/** The pins a release approves: exactly the definitions its review showed (pure: the server page and the preflight row both send them). */
export const shownPins = (detail: Extract<RowDetail, { kind: 'exposure' }>) => Object.fromEntries(detail.tools.filter((t) => t.pin).map((t) => [t.name, t.pin!]))
