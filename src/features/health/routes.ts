import { Elysia, t } from 'elysia'
import { databaseIsUsable, type Db } from '../../db/client'
import { JSON_TEXT_HEADERS } from '../../http/json-text'
import { problems } from '../../http/schemas'
import { VERSION } from '../../version'

const Health = t.Object({ status: t.Literal('ok'), version: t.String(), db: t.Literal('ok') })
const Unhealthy = t.Object({ status: t.Literal('error'), version: t.String(), db: t.Literal('error') })

// The healthy answer never changes: load balancers poll it, so it is serialised once.
const HEALTHY_JSON = JSON.stringify({ status: 'ok', version: VERSION, db: 'ok' } satisfies typeof Health.static)

export function healthRoutes(db: Db) {
  return new Elysia({ name: 'health' }).get(
    '/api/health',
    ({ set }) => {
      if (databaseIsUsable(db)) return new Response(HEALTHY_JSON, { headers: JSON_TEXT_HEADERS })
      set.status = 503
      return { status: 'error' as const, version: VERSION, db: 'error' as const }
    },
    {
      response: { 200: Health, 503: Unhealthy, ...problems(500) },
      detail: { tags: ['operations'], summary: 'Liveness and database check' },
    },
  )
}
