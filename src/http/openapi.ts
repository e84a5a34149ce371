// OpenAPI 3.1 generated from the route schemas, and interactive docs that work offline:
// the Scalar page script is embedded in the binary and served from /api/docs/scalar.js
// instead of the CDN the plugin uses by default, and nothing on the page calls Scalar's cloud.
import { toOpenAPISchema } from '@elysiajs/openapi'
import { ScalarRender } from '@elysiajs/openapi/scalar'
import { Elysia } from 'elysia'
// Must come after the plugin's module: it undoes the plugin's slow global format checks.
import './formats'
// The package's exports hide this file, so it is imported by path; Bun embeds it when compiling.
import scalarScript from '../../node_modules/@scalar/api-reference/dist/browser/standalone.js' with { type: 'file' }
import { VERSION } from '../version'
import { finishDocument, withComponents } from './openapi-finish'

const SPEC_PATH = '/api/openapi.json'
export const DOCS_PATH = '/api/docs'
/**
 * The docs page is HTML on the web app's origin, where the app keeps its token: nobody frames it,
 * and its address goes nowhere. (Scalar's page needs inline script and style: no stricter CSP.)
 */
export const DOCS_PAGE_HEADERS = {
  'content-security-policy': "frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
}
const SCRIPT_PATH = '/api/docs/scalar.js'

const DESCRIPTION = `Self-hosted prompt library: accounts, catalogue, favorites, prompt optimizer, subscriptions.

Errors are RFC 9457 problem details (application/problem+json) with a stable \`code\`. Every response carries an \`X-Request-Id\`.
Authenticate with \`Authorization: Bearer <JWT or personal access token>\`.`

// Scalar's page reaches for Scalar's cloud unless told otherwise: web fonts from fonts.scalar.com
// on every visit, Ask AI (an agent chat behind Scalar's proxy), Generate MCP, the Share/Deploy/
// Configure toolbar, "Open API Client" (client.scalar.com), and a request proxy at proxy.scalar.com.
// A self-hosted, offline docs page needs none of them: system fonts, no cloud buttons, and the
// in-page "Test Request" client sending straight to this server. Names as in @scalar/types'
// api-reference-configuration; test/docs-browser.test.ts checks the result in Chromium.
const OFFLINE = {
  withDefaultFonts: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  hideClientButton: true,
  telemetry: false,
  // '' rather than undefined: undefined lets the client fall back to https://proxy.scalar.com.
  proxyUrl: '',
}

const INFO = { title: 'promptlib API', version: VERSION, description: DESCRIPTION }
const DOCUMENTATION = {
  info: INFO,
  tags: [
    { name: 'accounts', description: 'Registration, login, the current user' },
    { name: 'tokens', description: 'Personal access tokens for scripts' },
    {
      name: 'oauth',
      description:
        'Sign-in through provider-a and provider-b (OAuth 2.0 / OpenID Connect). Browser redirects, not JSON: open the start route in the browser; the token comes back to the frontend in the URL fragment.',
    },
    { name: 'optimizer', description: 'Prompt optimization streamed as Server-Sent Events, daily quotas, history' },
    { name: 'catalogue', description: 'Categories, prompt listings, full-text search, prompt detail (metered)' },
    { name: 'skills', description: 'Agent Skills (pro and lifetime tiers)' },
    { name: 'favorites', description: 'The user’s favorite prompts' },
    { name: 'payments', description: 'Checkouts at the card and wallet providers, their webhooks, the user’s subscription' },
    {
      name: 'mcp',
      description:
        'Model Context Protocol for MCP clients (Claude, Cursor, VS Code): the catalogue, skills, favorites and the optimizer as tools, prompts and resources',
    },
    { name: 'operations', description: 'Health and documentation' },
  ],
  components: {
    schemas: {
      // POST /api/mcp's messages (its route declares its body by hand: the SDK's transport reads it).
      JsonRpcMessage: {
        type: 'object',
        required: ['jsonrpc', 'method'],
        properties: { jsonrpc: { const: '2.0' }, id: {}, method: { type: 'string' }, params: { type: 'object' } },
      },
    },
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'A JWT from login/register, or a personal access token (plib_pat_…)' },
    },
  },
}

/**
 * The document the plugin's generator writes from the route schemas, finished (openapi-finish.ts).
 * The plugin itself is not mounted: its route would serve the document unfinished, with what the
 * generator cannot say (problem+json, 204 without a body, headers) wrong or missing.
 */
export function apiDocs() {
  let document: object | null = null
  const page = ScalarRender(INFO, { cdn: SCRIPT_PATH, url: SPEC_PATH, ...OFFLINE, _integration: 'elysiajs' } as never)
  const docs: Elysia = new Elysia({ name: 'api-docs' })
  return docs
    .get(DOCS_PATH, () => new Response(page, { headers: { 'content-type': 'text/html; charset=utf-8' } }), { detail: { hide: true } })
    .get(
      SPEC_PATH,
      () => {
        // Every route is registered before the first request: the document is written once.
        document ??= finishDocument({
          openapi: '3.1.2',
          ...DOCUMENTATION,
          ...withComponents(toOpenAPISchema(docs, { paths: [DOCS_PATH, SPEC_PATH, SCRIPT_PATH], staticFile: true }), DOCUMENTATION.components),
        })
        return document
      },
      { detail: { hide: true } },
    )
    .get(
      SCRIPT_PATH,
      () =>
        new Response(Bun.file(scalarScript), {
          headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=86400' },
        }),
      { detail: { hide: true } },
    )
}
