// GET/POST /api/user/favorites, DELETE /api/user/favorites/{prompt_id} (contract section 6).
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../http/auth'
import { PaginationQuery, problems } from '../../http/schemas'
import { AddBody, Added, FavoritePage } from './model'
import type { FavoritesService } from './service'

const security = [{ bearer: [] }]

export function favoritesRoutes({ favorites, guard }: { favorites: FavoritesService; guard: AuthGuard }) {
  return new Elysia({ name: 'favorites' })
    .use(guard)
    .get('/api/user/favorites', ({ user, query }) => favorites.list(user.id, { limit: query.limit ?? 20, offset: query.offset ?? 0 }), {
      auth: true,
      query: t.Object({ ...PaginationQuery }),
      response: { 200: FavoritePage, ...problems(401, 403, 422) },
      detail: { tags: ['favorites'], summary: 'The user’s favorite prompts, newest first', security },
    })
    .post(
      '/api/user/favorites',
      async ({ user, body, set }) => {
        const { created, favorite } = await favorites.add(user.id, body.prompt_id)
        set.status = created ? 201 : 200
        return favorite
      },
      {
        ...guard.jsonBody({ auth: true }, AddBody),
        response: { 200: Added, 201: Added, ...problems(400, 401, 403, 404, 413, 415, 422) },
        detail: { tags: ['favorites'], summary: 'Add a favorite (201; 200 with the same body when it already was one)', security },
      },
    )
    .delete(
      '/api/user/favorites/:prompt_id',
      async ({ user, params, set }) => {
        await favorites.remove(user.id, params.prompt_id)
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
