// GET /api/user/export: the user's own data as one JSON file to download. A login token (JWT)
// only: a personal access token in a script must not be able to carry the whole account away
// (403 jwt_required, as for the other account-wide actions).
import { Elysia } from 'elysia'
import type { AuthGuard } from '../../http/auth'
import { NO_STORE, problems } from '../../http/schemas'
import { UserExport } from './model'
import type { UserDataService } from './service'

export function userDataRoutes({ userData, guard }: { userData: UserDataService; guard: AuthGuard }) {
  return new Elysia({ name: 'user-data' }).use(guard).get(
    '/api/user/export',
    async ({ user, set }) => {
      const document = await userData.export(user)
      Object.assign(set.headers, NO_STORE, {
        'content-disposition': `attachment; filename="promptlib-data-${document.exported_at.slice(0, 10)}.json"`,
      })
      return document
    },
    {
      jwtOnly: true,
      response: { 200: UserExport, ...problems(401, 403) },
      detail: {
        tags: ['accounts'],
        summary: 'Download your own data: account, favorites, token metadata, optimizer history and payments (needs a JWT, not a PAT)',
        description:
          'One JSON document sent as an attachment (`Content-Disposition: attachment`). Tokens are listed by their metadata only; no secret or hash is ever included. A personal access token gets 403 `jwt_required`.',
        security: [{ bearer: [] }],
      },
    },
  )
}
