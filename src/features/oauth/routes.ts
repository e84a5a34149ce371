// GET /api/auth/provider-a|b (start) and GET /api/auth/callback/provider-a|b (finish), contract
// section 4. Both answer redirects; the flow's state rides in an HttpOnly cookie per provider.
import { Elysia, t } from 'elysia'
import { requestInfo } from '../../http/request-context'
import { ProblemSchema } from '../../http/schemas'
import { ACTS_ON_GET } from '../../http/routes-index'
import { FLOW_LIFETIME_SECONDS } from './flow-state'
import { callbackPath, PROVIDERS, type ProviderName } from './providers'
import type { OAuthService } from './service'

export interface OAuthRoutesDeps {
  oauth: OAuthService
  /** PUBLIC_URL: the cookie is Secure when it is https, and scoped to the callback's public path */
  publicUrl: string
}

const cookieName = (name: ProviderName) => `plib_oauth_${name}`

function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/** A browser redirect nobody may cache; the callback's URL (code, state) is not sent on as a Referer. */
const redirect = (location: string, cookie: string) =>
  new Response(null, { status: 302, headers: { location, 'set-cookie': cookie, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } })

const StartQuery = t.Object({
  redirect: t.Optional(
    t.String({ description: "a path on the frontend's own origin (`/prompts`) to return to; handed back as `&redirect=` in the fragment" }),
  ),
})

// Anything the provider adds (scope, iss, authuser…) is allowed; a missing or bad value is a redirect with #error, never a 4xx page.
const CallbackQuery = t.Object(
  {
    code: t.Optional(t.String({ description: 'the authorization code' })),
    state: t.Optional(t.String({ description: 'must match the flow started in this browser' })),
    error: t.Optional(t.String({ description: 'the provider refused or the user cancelled (`access_denied`)' })),
    error_description: t.Optional(t.String()),
  },
  { additionalProperties: true },
)

// The routes answer with a ready Response (a redirect), which Elysia does not validate; their
// OpenAPI responses are written out here, with the headers that are the whole answer.
const redirectDoc = (where: string, cookie: string) => ({
  description: `Redirect ${where}`,
  headers: {
    Location: { schema: { type: 'string' as const, format: 'uri' }, description: where },
    'Set-Cookie': { schema: { type: 'string' as const }, description: cookie },
  },
})
// A TypeBox schema is a JSON Schema; only its TypeScript type differs from the OpenAPI typings'.
const problemDoc = { description: 'RFC 9457 problem details', content: { 'application/problem+json': { schema: ProblemSchema as never } } }

const START_DESCRIPTION = `Answers **302** to the provider's authorization page, with \`state\` and PKCE (S256), and sets an HttpOnly,
SameSite=Lax cookie (10 minutes; Secure when the server's public URL is https) that the callback checks. 404
\`oauth_provider_disabled\` when the provider is not configured; 422 when \`redirect\` is not a path on the frontend's origin.`

const CALLBACK_DESCRIPTION = `The provider sends the browser here. Always answers **302** to the frontend (never an error page):
\`FRONTEND_URL/auth/callback#access_token=<JWT>&token_type=bearer\` on success, or
\`FRONTEND_URL/auth/callback#error=<code>&error_description=<text>\` with \`access_denied\`, \`invalid_state\`,
\`invalid_grant\`, \`provider_unavailable\`, \`provider_error\`, \`email_unverified\` or \`server_error\`;
\`&redirect=<path>\` is added when the start was given one. The flow cookie is cleared either way.`

export function oauthRoutes({ oauth, publicUrl }: OAuthRoutesDeps) {
  const secure = publicUrl.startsWith('https:') ? '; Secure' : ''
  const cookie = (name: ProviderName, value: string, maxAge: number) =>
    `${cookieName(name)}=${value}; Max-Age=${maxAge}; Path=${new URL(publicUrl + callbackPath(name)).pathname}; HttpOnly; SameSite=Lax${secure}`

  const providerRoutes = (name: ProviderName) =>
    new Elysia({ name: `oauth-${name}` })
      .get(
        `/api/auth/${name}`,
        ({ query }) => {
          const { location, sealedFlow } = oauth.start(name, query.redirect)
          return redirect(location, cookie(name, sealedFlow, FLOW_LIFETIME_SECONDS))
        },
        {
          query: StartQuery,
          detail: {
            tags: ['oauth'],
            summary: `Sign in through ${name}: redirect to the provider`,
            description: START_DESCRIPTION,
            responses: { 302: redirectDoc('to the provider’s authorization page', 'the flow cookie'), 404: problemDoc, 422: problemDoc },
          },
        },
      )
      .get(
        `/api/auth/callback/${name}`,
        async ({ query, request }) => {
          const { location } = await oauth.finish(
            name,
            { code: query.code, state: query.state, error: query.error },
            cookieValue(request.headers.get('cookie'), cookieName(name)),
            requestInfo(request).id,
          )
          return redirect(location, cookie(name, '', 0))
        },
        {
          query: CallbackQuery,
          detail: {
            ...ACTS_ON_GET,
            tags: ['oauth'],
            summary: `Sign in through ${name}: the provider's callback`,
            description: CALLBACK_DESCRIPTION,
            responses: { 302: redirectDoc('to the frontend, the token or the error in the fragment', 'the cleared flow cookie'), 404: problemDoc },
          },
        },
      )

  const [a, b] = PROVIDERS
  return new Elysia({ name: 'oauth' }).use(providerRoutes(a)).use(providerRoutes(b))
}
