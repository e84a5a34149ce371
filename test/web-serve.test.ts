// The web app as the server answers it: the page for every path outside /api (client-side routes),
// its hashed files, the security headers, and /api left exactly as it was. Black-box over HTTP.
//
// WEB_BASE_URL points these checks at a running server (CI: the compiled binary, whose files Bun
// bundled and embedded at build time) instead of the in-process app (bundled from web/ on first use).
// The last test loads the page in Debian's Chromium (skipped without it) and checks that it draws,
// breaks no CSP rule and asks nothing of another origin.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { type Browser, chromium } from 'playwright-core'
import { loadDemoCatalogueIfEmpty } from '../src/features/catalogue'
import { makeTestApp, type TestApp } from './support/app'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const haveChromium = existsSync(CHROMIUM)
if (!haveChromium) console.log(`web-serve: the browser check is skipped, no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`)

const external = process.env.WEB_BASE_URL?.replace(/\/$/, '')
let t: TestApp | undefined
let server: ReturnType<typeof Bun.serve> | undefined
let base = external ?? ''

beforeAll(async () => {
  if (external) return
  // SQLite on either pass: these check the serving of the app, which no engine touches (and the
  // demo catalogue loads only on SQLite until the catalogue runs on PostgreSQL).
  t = await makeTestApp(
    { OAUTH_A_CLIENT_ID: 'client', OAUTH_A_CLIENT_SECRET: 'secret', PAYPAL_CLIENT_ID: 'pp', PAYPAL_CLIENT_SECRET: 'pp-secret' },
    { databaseUrl: null },
  )
  await loadDemoCatalogueIfEmpty(t.services.catalogue, t.log)
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request, s) => t!.handle(request, s) })
  base = `http://127.0.0.1:${server.port}`
})
afterAll(() => server?.stop(true))

/** A request as a browser sends it; the body left compressed when the server compressed it. */
const get = (path: string, init: RequestInit & { decompress?: boolean } = {}) =>
  fetch(base + path, { redirect: 'manual', decompress: false, ...init })

const assetPaths = (html: string) => [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)

describe('the page', () => {
  test('every client-side route answers the same page, with the security headers', async () => {
    const pages = await Promise.all(
      [
        '/',
        '/c/writing',
        '/p/0b5c1d9e-8f3a-4c2b-9d1e-7a6b5c4d3e2f',
        '/search?q=email',
        '/auth/callback',
        '/billing?status=success',
        '/no/such/page',
        '/apix',
      ].map(async (path) => ({ path, res: await get(path) })),
    )
    const bodies = new Set<string>()
    for (const { path, res } of pages) {
      expect({ path, status: res.status }).toEqual({ path, status: 200 })
      const h = res.headers
      expect(h.get('content-type')).toStartWith('text/html')
      const csp = h.get('content-security-policy') ?? ''
      for (const directive of [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ]) {
        expect(csp).toContain(directive)
      }
      expect(csp).not.toContain('unsafe-inline')
      expect(csp).not.toContain('unsafe-eval')
      expect(h.get('x-content-type-options')).toBe('nosniff')
      expect(h.get('x-request-id')).toMatch(/^[A-Za-z0-9._-]{1,128}$/)
      expect(h.get('referrer-policy')).toBe('no-referrer')
      expect(h.get('x-frame-options')).toBe('DENY')
      expect(h.get('cache-control')).toBe('no-cache')
      expect(h.get('etag')).toBeTruthy()
      bodies.add(await res.text())
    }
    expect(bodies.size).toBe(1)
  })

  test('no inline script or style, and every file it names is on this origin', async () => {
    const html = await (await get('/')).text()
    expect(html).toContain('<html lang="en">')
    for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\bsrc="\//)
    expect(html).not.toMatch(/<style\b|\sstyle="|\son[a-z]+="/i)
    const paths = assetPaths(html)
    expect(paths.some((p) => p.endsWith('.js'))).toBe(true)
    expect(paths.some((p) => p.endsWith('.css'))).toBe(true)
    for (const path of paths) expect(path).toMatch(/^\/[^/]/)
  })

  test('HEAD answers the headers alone; a matching ETag is a 304', async () => {
    const head = await get('/', { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
    expect(head.headers.get('content-type')).toStartWith('text/html')
    const etag = head.headers.get('etag')!
    const again = await get('/c/coding', { headers: { 'if-none-match': etag } })
    expect(again.status).toBe(304)
    expect(again.headers.get('content-security-policy')).toContain("default-src 'none'")
  })

  test('If-None-Match as RFC 9110 reads it (weak tags, lists, *); the gzip and plain bodies have tags of their own', async () => {
    const plain = await get('/', { headers: { 'accept-encoding': 'identity' } })
    const gzip = await get('/', { headers: { 'accept-encoding': 'gzip' } })
    expect(gzip.headers.get('content-encoding')).toBe('gzip')
    const [plainTag, gzipTag] = [plain.headers.get('etag')!, gzip.headers.get('etag')!]
    expect(plainTag).not.toBe(gzipTag)
    for (const header of [`W/${gzipTag}`, `"nope", ${gzipTag}`, '*'])
      expect([header, (await get('/', { headers: { 'accept-encoding': 'gzip', 'if-none-match': header } })).status]).toEqual([header, 304])
    // The plain body's tag does not validate the gzip body, and a tag of nothing here matches nothing.
    for (const header of [plainTag, '"nope"'])
      expect([header, (await get('/', { headers: { 'accept-encoding': 'gzip', 'if-none-match': header } })).status]).toEqual([header, 200])
  })

  test('other methods: 405 with Allow (problem+json); OPTIONS lists them', async () => {
    const post = await get('/account', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
    expect(post.headers.get('content-type')).toStartWith('application/problem+json')
    expect(((await post.json()) as { code: string }).code).toBe('method_not_allowed')
    const options = await get('/account', { method: 'OPTIONS' })
    expect(options.status).toBe(204)
    expect(options.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
  })
})

describe('the files', () => {
  test('script and stylesheet: their types, cached for good (hashed names), gzipped when asked', async () => {
    for (const path of assetPaths(await (await get('/')).text())) {
      const plain = await get(path)
      expect(plain.status).toBe(200)
      expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      expect(plain.headers.get('x-content-type-options')).toBe('nosniff')
      expect(plain.headers.get('content-encoding')).toBeNull()
      const type = plain.headers.get('content-type')!
      if (path.endsWith('.js')) expect(type).toStartWith('text/javascript')
      if (path.endsWith('.css')) expect(type).toStartWith('text/css')
      if (path.endsWith('.svg')) expect(type).toStartWith('image/svg+xml')
      const body = new Uint8Array(await plain.arrayBuffer())
      const zipped = await get(path, { headers: { 'accept-encoding': 'gzip, br' } })
      if (zipped.headers.get('content-encoding') === 'gzip') {
        expect(zipped.headers.get('vary')).toContain('Accept-Encoding')
        expect(gunzipSync(new Uint8Array(await zipped.arrayBuffer()))).toEqual(Buffer.from(body))
      }
    }
  })

  test('the stylesheet loads nothing from another site', async () => {
    const css = assetPaths(await (await get('/')).text()).find((p) => p.endsWith('.css'))!
    const text = await (await get(css, { decompress: true })).text()
    expect(text).not.toMatch(/url\(\s*['"]?(https?:)?\/\//)
    expect(text).not.toContain('@import')
  })

  test('a missing file is a 404 problem, never the page', async () => {
    for (const path of ['/missing.js', '/chunk-00000000.css', '/favicon.ico', '/deep/path/file.png']) {
      const res = await get(path)
      expect({ path, status: res.status }).toEqual({ path, status: 404 })
      expect(res.headers.get('content-type')).toStartWith('application/problem+json')
    }
  })
})

describe('/api stays the API', () => {
  test('unknown paths are problem+json 404s, other methods 405, exactly as before', async () => {
    for (const path of ['/api', '/api/', '/api/nothing', '/api/nothing/here.js', '/api?x=1']) {
      const res = await get(path)
      expect({ path, status: res.status, type: res.headers.get('content-type') }).toEqual({ path, status: 404, type: 'application/problem+json' })
    }
    const post = await get('/api/health', { method: 'POST' })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
    expect((await get('/api/health')).headers.get('content-type')).toStartWith('application/json')
  })
})

describe.skipIf(external !== undefined)('in-process only', () => {
  test('the access log names the web app’s route, never the path', async () => {
    await get('/p/some-id?secret=1', { headers: { 'x-request-id': 'web-log-1' } })
    await Bun.sleep(10)
    expect(t!.log.lines().find((l) => l.request_id === 'web-log-1')).toMatchObject({ method: 'GET', route: '/*', status: 200 })
  })

  test('FRONTEND_URL defaults to this server: sign-in and payment redirects land on the app’s pages', async () => {
    const callback = await get('/api/auth/callback/provider-a?code=x&state=y')
    expect(callback.status).toBe(302)
    const location = callback.headers.get('location')!
    expect(location).toStartWith(`${t!.config.publicUrl}/auth/callback#error=`)
    const paypal = await get('/api/payments/altpay/return')
    expect(paypal.headers.get('location')).toBe(`${t!.config.publicUrl}/billing?status=error`)
    // …and those paths are the app's page
    for (const path of ['/auth/callback', '/billing?status=error']) expect((await get(path)).headers.get('content-type')).toStartWith('text/html')
  })
})

test.skipIf(!haveChromium)(
  'in Chromium the page draws the library, breaks no CSP rule, and requests nothing from another origin',
  async () => {
    const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] })
    try {
      const page = await browser.newPage()
      const requested: string[] = []
      const problems: string[] = []
      page.on('request', (r) => void requested.push(r.url()))
      page.on('pageerror', (e) => void problems.push(`page error: ${e.message}`))
      page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`))
      await page.goto(`${base}/`)
      await page.getByRole('heading', { level: 1, name: 'Prompt library' }).waitFor({ timeout: 15_000 })
      await page
        .getByRole('link', { name: /Writing/ })
        .first()
        .click()
      await page.getByRole('heading', { level: 1, name: 'Writing' }).waitFor()
      await page.locator('.prompt-card a').first().click()
      await page.locator('#prompt-text').waitFor()
      const origin = new URL(base).origin
      expect(requested.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin)).toEqual([])
      expect(problems).toEqual([])
    } finally {
      await browser.close()
    }
  },
  60_000,
)
