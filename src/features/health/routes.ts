import { Elysia, t } from 'elysia'
import type { Storage } from '../../db/storage'
import { JSON_TEXT_HEADERS } from '../../http/json-text'
import { problems } from '../../http/schemas'
import { VERSION } from '../../version'

const Health = t.Object({ status: t.Literal('ok'), version: t.String(), db: t.Literal('ok') })
const Unhealthy = t.Object({ status: t.Literal('error'), version: t.String(), db: t.Literal('error') })

// The healthy answer never changes: load balancers poll it, so it is serialised once.
const HEALTHY_JSON = JSON.stringify({ status: 'ok', version: VERSION, db: 'ok' } satisfies typeof Health.static)

const UNHEALTHY: typeof Unhealthy.static = { status: 'error', version: VERSION, db: 'error' }

/**
 * On SQLite the check is a synchronous query and the route stays synchronous: a promise per
 * request costs this light, often-polled route a visible share of its throughput. (Elysia
 * treats a handler as async when its source reads `return f(` or `=> f(`; see http/json-text.ts.)
 */
export function healthRoutes(storage: Pick<Storage, 'engine' | 'healthy'>) {
  const options = {
    response: { 200: Health, 503: Unhealthy, ...problems(500) },
    detail: { tags: ['operations'], summary: 'Liveness and database check' },
  }
  const app = new Elysia({ name: 'health' })
  if (storage.engine === 'sqlite') {
    return app.get(
      '/api/health',
      ({ set }) => {
        if (storage.healthy()) return new Response(HEALTHY_JSON, { headers: JSON_TEXT_HEADERS })
        set.status = 503
        return UNHEALTHY
      },
      options,
    )
  }
  return app.get(
    '/api/health',
    async () => ((await storage.healthy()) ? new Response(HEALTHY_JSON, { headers: JSON_TEXT_HEADERS }) : Response.json(UNHEALTHY, { status: 503 })),
    options,
  )
}
