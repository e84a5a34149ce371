import { Elysia, t } from 'elysia'
import { databaseIsUsable, type Db } from '../../db/client'
import { problems } from '../../http/schemas'
import { VERSION } from '../../version'

const Health = t.Object({ status: t.Literal('ok'), version: t.String(), db: t.Literal('ok') })
const Unhealthy = t.Object({ status: t.Literal('error'), version: t.String(), db: t.Literal('error') })

export function healthRoutes(db: Db) {
  return new Elysia({ name: 'health' }).get(
    '/api/health',
    ({ set }) => {
      if (databaseIsUsable(db)) return { status: 'ok' as const, version: VERSION, db: 'ok' as const }
      set.status = 503
      return { status: 'error' as const, version: VERSION, db: 'error' as const }
    },
    {
      response: { 200: Health, 503: Unhealthy, ...problems(500) },
      detail: { tags: ['operations'], summary: 'Liveness and database check' },
    },
  )
}
