// The web app, served at every path outside /api: the page for any client-side route (the app
// routes in the browser), and its hashed script and stylesheet. It calls only the public /api, like
// any other client. The edge (http/edge.ts) sends requests here and adds what every response gets.
import { ProblemError, problemResponse } from '../http/problem'
import { type WebAsset, type WebBundle, webBundle } from './bundle'

/**
 * No inline script or style, nothing from another origin: the page's own files, the API on the
 * same origin, and images only as data: URLs (none today). Not framed by anyone.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const PAGE_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  // The OAuth callback's token is in the fragment, which no Referer carries; other pages' paths stay here too.
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
  // The page names the current script by its hash: revalidate it on every visit (cheap, an ETag).
  'cache-control': 'no-cache',
}

const ASSET_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  // The name changes when the content does.
  'cache-control': 'public, max-age=31536000, immutable',
}

const ALLOW = 'GET, HEAD, OPTIONS'

export type WebHandler = (request: Request, pathname: string) => Response | Promise<Response>

/**
 * If-None-Match as RFC 9110 13.1.2 reads it: `*`, or a list of tags compared weakly (a proxy that
 * transforms the body may hand on the tag weakened, W/"…").
 */
function matchesNoneOf(header: string | null, etag: string): boolean {
  if (header === null) return false
  if (header.trim() === '*') return true
  const opaque = etag.replace(/^W\//, '')
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque)
}

function answer(request: Request, file: WebAsset, headers: Record<string, string>): Response {
  const gzip = file.gzip !== null && /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')
  // One tag per representation (RFC 9110 8.8.3): the gzip body is another set of bytes than the plain one.
  const etag = gzip ? file.etag.replace(/"$/, '-gz"') : file.etag
  const common = { ...headers, etag, vary: 'Accept-Encoding' }
  if (matchesNoneOf(request.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers: common })
  const body = gzip ? file.gzip! : file.body
  const response = new Response(request.method === 'HEAD' ? null : body, {
    headers: { ...common, 'content-type': file.type, ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
  })
  if (request.method === 'HEAD') response.headers.set('content-length', String(body.byteLength))
  return response
}

/** A path whose last segment has a dot names a file: a missing one is a 404, never the page. */
const looksLikeFile = (pathname: string) => pathname.slice(pathname.lastIndexOf('/') + 1).includes('.')

function serve(bundle: WebBundle, request: Request, pathname: string): Response {
  const file = bundle.assets.get(pathname)
  if (file) return answer(request, file, ASSET_HEADERS)
  if (looksLikeFile(pathname)) {
    return problemResponse(new ProblemError(404, 'not_found', 'No such file.'), { 'content-security-policy': CONTENT_SECURITY_POLICY })
  }
  return answer(request, bundle.page, PAGE_HEADERS)
}

export function createWebApp(): WebHandler {
  let bundle: WebBundle | null = null
  return (request, pathname) => {
    const method = request.method
    if (method === 'OPTIONS') return new Response(null, { status: 204, headers: { allow: ALLOW } })
    if (method !== 'GET' && method !== 'HEAD') {
      return problemResponse(new ProblemError(405, 'method_not_allowed', `The web app answers only ${ALLOW}.`, {}, { allow: ALLOW }))
    }
    if (bundle) return serve(bundle, request, pathname)
    return webBundle().then((loaded) => serve((bundle = loaded), request, pathname))
  }
}

/** Loads (or, run from source, builds) the app's files now rather than on the first visit. */
export async function warmUpWebApp(): Promise<void> {
  await webBundle()
}

/**
 * The path of a request for the web app, or null for the API's: every path outside /api is the
 * app's (`/api` itself, `/api/…` and `/api?…` stay the API's). Runs on every request, so the URL
 * is only sliced for the app's.
 */
export function webPathOf(url: string): string | null {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start === -1) return '/'
  if (url.startsWith('/api', start)) {
    const next = url.charCodeAt(start + 4)
    // end of the URL, '/', '?' or '#'
    if (Number.isNaN(next) || next === 47 || next === 63 || next === 35) return null
  }
  const query = url.indexOf('?', start)
  return url.slice(start, query === -1 ? undefined : query)
}
