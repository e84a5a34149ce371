// The shapes of /api/user/favorites, declared once (routes, OpenAPI and the service's types).
import { t } from 'elysia'
import { paginated, strictObject } from '../../http/schemas'

export const Favorite = t.Object({
  prompt_id: t.String({ format: 'uuid' }),
  title: t.String(),
  category_id: t.String(),
  created_at: t.String({ format: 'date-time' }),
})
export type Favorite = typeof Favorite.static
export const FavoritePage = paginated(Favorite)
export type FavoritePage = typeof FavoritePage.static
export const Added = t.Object({ prompt_id: t.String({ format: 'uuid' }), created_at: t.String({ format: 'date-time' }) })
export type Added = typeof Added.static
export const AddBody = strictObject({ prompt_id: t.String({ format: 'uuid', description: 'the prompt’s UUID' }) })
