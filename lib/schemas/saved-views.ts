import { z } from 'zod'

/**
 * The Activity page's saved views, as this browser keeps them (components/activity/saved-views.tsx,
 * a client component: this module imports nothing but zod).
 */
export const viewNameSchema = z.string().trim().min(1, 'name the view').max(60, 'a view name is at most 60 characters')
export const storedViewsSchema = z.array(z.object({ name: viewNameSchema, query: z.string().max(4_000) })).max(50)
export type SavedView = z.infer<typeof storedViewsSchema>[number]
