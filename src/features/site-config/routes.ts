import { Elysia } from 'elysia'
import { JSON_TEXT_HEADERS } from '../../http/json-text'
import { problems } from '../../http/schemas'
import { SiteConfig } from './model'

/** The answer never changes while the process runs: serialised once. */
export function siteConfigRoutes(config: SiteConfig) {
  const text = JSON.stringify(config)
  return new Elysia({ name: 'site-config' }).get('/api/config', () => new Response(text, { headers: JSON_TEXT_HEADERS }), {
    response: { 200: SiteConfig, ...problems(500) },
    detail: {
      tags: ['operations'],
      summary: 'Sign-in and payment providers this server offers, and the tier table',
      description:
        'No authentication. For clients that draw sign-in buttons, plans and checkout buttons; the answer changes only when the server restarts with another configuration.',
    },
  })
}
