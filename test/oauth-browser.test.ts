// Sign-in through a provider in a real browser, end to end: a frontend page's link → the server's
// start route → the provider's consent page (a real OAuth server on loopback, on another site:
// localhost against 127.0.0.1) → the server's callback → the frontend's /auth/callback, whose script reads the token
// from the URL fragment and calls the API with it. The flow cookie must survive the cross-site
// return (SameSite=Lax), and the token must never travel in a URL a server sees.
//
// Runs Debian's Chromium through playwright-core (never a downloaded browser). Without
// /usr/bin/chromium (or CHROMIUM_PATH) the test is skipped with a printed reason; CI installs it.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'
import { json, makeTestApp, type TestApp } from './support/app'
import { MockProvider } from './support/oauth-provider'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const haveChromium = existsSync(CHROMIUM)
if (!haveChromium) console.log(`oauth-browser: skipped, no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`)

// The frontend's two pages: a sign-in link, and the callback page every frontend must have.
const frontendPage = (api: string, path: string) =>
  path === '/auth/callback'
    ? `<!doctype html><title>Signing in</title><p id="status">working…</p><script>
        const params = new URLSearchParams(location.hash.slice(1))
        history.replaceState(null, '', location.pathname) // the token leaves the address bar
        const status = document.getElementById('status')
        const token = params.get('access_token')
        if (!token) status.textContent = 'Failed: ' + params.get('error')
        else fetch('${api}/api/user/me', { headers: { authorization: 'Bearer ' + token } })
          .then((r) => r.json())
          .then((me) => { status.dataset.token = token; status.textContent = 'Signed in as ' + me.email + ', back to ' + params.get('redirect') })
      </script>`
    : `<!doctype html><title>promptlib</title><a id="sign-in" href="${api}/api/auth/provider-a?redirect=/favorites">Sign in with provider A</a>`

let browser: Browser | undefined
let idp: MockProvider | undefined
let app: TestApp | undefined
const servers: ReturnType<typeof Bun.serve>[] = []
let api = ''
let frontend = ''

beforeAll(async () => {
  if (!haveChromium) return
  idp = await MockProvider.start('oidc')
  // The API listens first: its own URL goes into PUBLIC_URL (the redirect URI) before the app exists.
  let handle: (request: Request) => Response | Promise<Response> = () => new Response('starting', { status: 503 })
  const apiServer = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => handle(request) })
  api = `http://127.0.0.1:${apiServer.port}`
  const frontendServer = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (request) => new Response(frontendPage(api, new URL(request.url).pathname), { headers: { 'content-type': 'text/html; charset=utf-8' } }),
  })
  frontend = `http://127.0.0.1:${frontendServer.port}`
  servers.push(apiServer, frontendServer)
  // The provider asks for consent on its own page, so the way back to the callback starts on its site.
  app = await makeTestApp({
    PUBLIC_URL: api,
    FRONTEND_URL: frontend,
    CORS_ORIGINS: frontend,
    ...idp.env('A'),
    OAUTH_A_AUTHORIZE_URL: `${idp.url}/consent`,
  })
  handle = app.handle
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] })
})

afterAll(async () => {
  await browser?.close()
  for (const server of servers) server.stop(true)
  await idp?.stop()
})

test.skipIf(!haveChromium)(
  'start → provider → callback → the frontend page, which reads the token from the fragment',
  async () => {
    const email = `browser-${Date.now()}@example.com`
    idp!.defaultUser = idp!.add({ sub: `browser-${Date.now()}`, email, email_verified: true, name: 'Browser User' })
    const context = await browser!.newContext()
    const requested: string[] = []
    context.on('request', (request) => void requested.push(request.url()))
    const page = await context.newPage()
    try {
      await page.goto(frontend)
      await page.click('#sign-in')
      await page.waitForURL(`${idp!.url}/consent?**`)
      await page.click('#allow')
      const status = page.locator('#status')
      await status.getByText('Signed in as').waitFor({ timeout: 20_000 })
      expect(await status.textContent()).toBe(`Signed in as ${email}, back to /favorites`)
      expect(new URL(page.url()).pathname).toBe('/auth/callback')

      // The browser went through the provider on another site and back to the callback.
      const callback = requested.find((url) => url.startsWith(`${api}/api/auth/callback/provider-a?`))
      expect(callback).toBeDefined()
      expect(requested.some((url) => url.startsWith(`${idp!.url}/authorize?`))).toBe(true)
      // The token reached the page only in the fragment: no request the browser made carries it.
      const token = (await status.getAttribute('data-token'))!
      expect(token.split('.')).toHaveLength(3)
      expect(requested.filter((url) => url.includes(token))).toEqual([])
      expect((await json(await app!.request('/api/user/me', { token }))).providers).toEqual(['provider-a'])
      // The flow cookie is gone once the callback has run.
      expect((await context.cookies(api)).filter((c) => c.name.startsWith('plib_oauth_'))).toEqual([])
    } finally {
      await context.close()
    }
  },
  60_000,
)
