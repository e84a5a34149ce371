// GET/POST /api/user/favorites, DELETE /api/user/favorites/{prompt_id} (contract section 6).
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../http/auth'
import { PaginationQuery, paginated, problems, strictObject } from '../../http/schemas'
import type { Favorites } from './service'

const Favorite = t.Object({ prompt_id: t.String({ format: 'uuid' }), title: t.String(), category_id: t.String(), created_at: t.String({ format: 'date-time' }) })
const Added = t.Object({ prompt_id: t.String({ format: 'uuid' }), created_at: t.String({ format: 'date-time' }) })
const security = [{ bearer: [] }]

export function favoritesRoutes({ favorites, guard }: { favorites: Favorites; guard: AuthGuard }) {
  return new Elysia({ name: 'favorites' })
    .use(guard)
    .get('/api/user/favorites', ({ user, query }) => favorites.list(user.id, { limit: query.limit ?? 20, offset: query.offset ?? 0 }), {
      auth: true,
      query: t.Object({ ...PaginationQuery }),
      response: { 200: paginated(Favorite), ...problems(401, 403, 422) },
      detail: { tags: ['favorites'], summary: 'The user’s favorite prompts, newest first', security },
    })
    .post(
      '/api/user/favorites',
      ({ user, body, set }) => {
        const { created, favorite } = favorites.add(user.id, body.prompt_id)
        set.status = created ? 201 : 200
        return favorite
      },
      {
        ...guard.jsonBody({ auth: true }, strictObject({ prompt_id: t.String({ format: 'uuid', description: 'the prompt’s UUID' }) })),
        response: { 200: Added, 201: Added, ...problems(400, 401, 403, 404, 413, 415, 422) },
        detail: { tags: ['favorites'], summary: 'Add a favorite (201; 200 with the same body when it already was one)', security },
      },
    )
    .delete(
      '/api/user/favorites/:prompt_id',
      ({ user, params, set }) => {
        favorites.remove(user.id, params.prompt_id)
        set.status = 204
      },
      {
        auth: true,
        params: t.Object({ prompt_id: t.String({ format: 'uuid' }) }),
        response: { 204: t.Void(), ...problems(401, 403, 404, 422) },
        detail: { tags: ['favorites'], summary: 'Remove a favorite (404 when it was not one)', security },
      },
    )
}
