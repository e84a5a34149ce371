// The web app against hostile data and hostile links: catalogue text, skill Markdown, user and token
// names, URL parameters and fragments that try to run script, links that try to leave the site after
// a sign-in, names that every JavaScript object inherits, malformed percent-encoding; and the
// static serving against odd paths (traversal, NUL, encoded slashes, very long, raw `..`).
//
// The browser checks run in Debian's Chromium with the page's CSP bypassed: what a payload would do
// must be stopped by the app itself (text is text, Markdown is sanitized), not by the CSP behind it.
// A payload sets window.__xss; it must stay undefined. Skipped without Chromium, with a reason.
// SQLite on either pass: these check the app and its serving, which no engine touches.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { connect } from 'node:net'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { json, makeTestApp, register, setTier, type TestApp } from './support/app'
import { haveChromium, launchChromium } from './support/browser'
import { importRecords, loadTestCatalogue } from './support/catalogue'

// Browser globals, for the functions that run in the page (page.evaluate); this program has no DOM types.
declare const window: any
declare const document: any
declare const localStorage: any

if (!haveChromium)
  console.log('hostile-web: the browser checks are skipped, no Chromium at /usr/bin/chromium (apt-get install chromium, or set CHROMIUM_PATH)')

/** Markup that sets window.__xss to `tag` if any of it is ever parsed as HTML. */
const payload = (tag: string) =>
  `<img src=x onerror="window.__xss='${tag}'"><svg onload="window.__xss='${tag}'"></svg><script>window.__xss='${tag}'</script>"'></a>`

/** The same, short enough for a name (at most 100 characters). */
const short = (tag: string) => `<img src=x onerror="window.__xss='${tag}'"><script>window.__xss=1</script>`

const CATEGORY = 'hostile'
const PROMPT = '55555555-5555-4555-8555-555555555551'
const PROTO_PROMPT = '55555555-5555-4555-8555-555555555552'
const SKILL = 'hostile-skill'

let t: TestApp
let server: ReturnType<typeof Bun.serve>
let base = ''
let browser: Browser | undefined
const contexts: BrowserContext[] = []

beforeAll(async () => {
  t = await makeTestApp({}, { databaseUrl: null })
  await loadTestCatalogue(t)
  await importRecords(t, {
    categories: [
      {
        id: CATEGORY,
        name: `Cat ${short('cat')}`,
        description: payload('category-description'),
        icon: '<b>',
        subcategories: [{ id: 'sub', name: `Sub ${short('sub')}`, description: 'x' }],
      },
    ],
    prompts: [
      {
        id: PROMPT,
        title: `Zebrafish ${short('title')}`,
        description: payload('description'),
        category: CATEGORY,
        subcategory: 'sub',
        tags: [short('tag'), 'javascript:alert(1)'],
        content: `Zebrafish ${payload('content')} {{topic:${'<img src=x onerror="window.__xss=1">'}}} {{style:<b>a</b>|"b"}} </script><!-- &lt;mark&gt; <mark>x</mark>`,
      },
      {
        id: PROTO_PROMPT,
        title: 'Inherited variable names',
        category: CATEGORY,
        content: 'Set {{__proto__}} and {{constructor}} and {{toString:plain}}.',
      },
    ],
    skills: [
      {
        id: SKILL,
        name: SKILL,
        description: payload('skill-description'),
        category: CATEGORY,
        tags: [short('stag')],
        license: payload('license'),
        compatibility: payload('compatibility'),
        metadata: { [short('mkey')]: payload('meta-value') },
        instructions: [
          '# Hostile',
          '',
          '<svg><animate onbegin="window.__xss=\'animate\'" attributeName="x" dur="1s"></animate></svg>',
          '',
          '<math><mi xlink:href="javascript:window.__xss=\'math\'">math</mi></math>',
          '',
          '<details open ontoggle="window.__xss=\'details\'"><summary>details</summary></details>',
          '',
          '<noscript><p title="</noscript><img src=x onerror=window.__xss=\'noscript\'>"></p></noscript>',
          '',
          '<form action="javascript:window.__xss=\'form\'"><button>form</button></form>',
          '',
          '<a href="data:text/html,<script>parent.__xss=\'data\'</script>">data link</a>',
          '',
          '<a href=" javascript:window.__xss=\'space\'">space link</a>',
          '',
          "[mixed case](JaVaScRiPt:window.__xss='case') [entity](java&#x09;script:window.__xss='tab')",
          '',
          '<object data="javascript:window.__xss=\'object\'"></object><embed src="javascript:window.__xss=\'embed\'">',
          '',
          '<base href="https://example.org/"><meta http-equiv="refresh" content="0;url=javascript:window.__xss=\'meta\'">',
          '',
          '<a name="promptlibMarkdown">named</a> <img name="cookie" src="data:image/png;base64,iVBORw0KGgo=">',
          '',
          '[protocol-relative](//example.org/page) and <a href="/\\example.org/page">backslash</a>',
        ].join('\n'),
      },
    ],
  })
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request, s) => t.handle(request, s) })
  base = `http://127.0.0.1:${server.port}`
  if (haveChromium) browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  server?.stop(true)
})

/** One visitor whose page ignores the CSP (so nothing but the app stops a payload), signed in with `token`. */
async function visitor(token?: string): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const context = await browser!.newContext({ bypassCSP: true })
  contexts.push(context)
  // Anything the app cannot reach stays inside the test.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: 'elsewhere' }))
  if (token) await context.addInitScript((value) => localStorage.setItem('promptlib.token', value), token)
  const page = await context.newPage()
  const errors: string[] = []
  const requests: string[] = []
  page.on('pageerror', (error) => void errors.push(error.message))
  page.on('request', (request) => void requests.push(request.url()))
  return { page, errors, requests }
}

/** No payload ran, and none of its markup is in the page as elements. */
async function expectNoScriptRan(page: Page, where: string) {
  const found = await page.evaluate(() => ({
    xss: window.__xss ?? null,
    elements: document.querySelectorAll('img[src="x"], [onerror], [onload], [onbegin], [ontoggle], script:not([src]), iframe, object, embed, base')
      .length,
  }))
  expect({ where, ...found }).toEqual({ where, xss: null, elements: 0 })
}

const h1 = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor({ timeout: 15_000 })

async function userOf(tier: 'free' | 'starter' | 'pro', name = 'Hostile Tester') {
  const registered = await register(t, { name })
  if (tier !== 'free') await setTier(t, registered.user.id, tier)
  return registered
}

describe.skipIf(!haveChromium)('stored text is text: no script runs, with the CSP bypassed', () => {
  test('home, category, search (snippets), prompt page (variables, defaults, options), favorites', async () => {
    const user = await userOf('starter')
    await t.request('/api/user/favorites', { method: 'POST', token: user.token, json: { prompt_id: PROMPT } })
    const { page, errors } = await visitor(user.token)

    await page.goto(`${base}/`)
    await h1(page, 'Prompt library')
    await page.getByText('Sub <img src=x').first().waitFor()
    await expectNoScriptRan(page, 'home')

    await page.goto(`${base}/c/${CATEGORY}`)
    await page.getByText('Zebrafish <img src=x onerror').first().waitFor()
    await expectNoScriptRan(page, 'category')

    await page.goto(`${base}/search?q=zebrafish`)
    await page.locator('.prompt-card mark').first().waitFor()
    // The snippet's markup is shown as the text it is; only <mark> is markup.
    expect(await page.locator('.prompt-card .card-text').first().innerText()).toContain('<img src=x')
    await expectNoScriptRan(page, 'search')

    await page.goto(`${base}/p/${PROMPT}`)
    await h1(page, /^Zebrafish <img src=x/)
    await page.locator('#prompt-text').waitFor()
    expect(await page.locator('#prompt-text').innerText()).toContain('</script><!-- &lt;mark&gt; <mark>x</mark>')
    expect(await page.locator('#var-topic').inputValue()).toBe('<img src=x onerror="window.__xss=1">')
    expect(await page.locator('#var-style option').allInnerTexts()).toEqual(['<b>a</b>', '"b"'])
    // Tags (a `javascript:` one included) are filter links on this site.
    const tagLinks = await page.locator('a.tag').evaluateAll((links: any[]) => links.map((a) => a.getAttribute('href')))
    expect(tagLinks.length).toBe(2)
    for (const href of tagLinks) expect(href).toStartWith(`/c/${CATEGORY}?tag=`)
    await expectNoScriptRan(page, 'prompt')

    await page.goto(`${base}/favorites`)
    await page.getByRole('link', { name: /^Zebrafish <img/ }).waitFor()
    await expectNoScriptRan(page, 'favorites')
    expect(errors).toEqual([])
  }, 60_000)

  test('user and token names: the header, the account page, the tokens page', async () => {
    const user = await userOf('starter', `<img src=x onerror="window.__xss='name'">`)
    const created = await t.request('/api/user/tokens', { method: 'POST', token: user.token, json: { name: short('token') } })
    expect(created.status).toBe(201)
    const { page, errors } = await visitor(user.token)
    await page.goto(`${base}/account`)
    await page.getByText(`<img src=x onerror="window.__xss='name'">`).first().waitFor()
    await expectNoScriptRan(page, 'account')
    await page.goto(`${base}/tokens`)
    await page.getByText('<img src=x onerror="window.__xss=\'token\'">', { exact: false }).first().waitFor()
    await expectNoScriptRan(page, 'tokens')
    expect(errors).toEqual([])
  }, 60_000)

  test('a skill: its facts as text; its Markdown sanitized against what DOMPurify must catch; links that leave open beside the app', async () => {
    const user = await userOf('pro')
    const { page, errors } = await visitor(user.token)
    await page.goto(`${base}/skills/${SKILL}`)
    await h1(page, SKILL)
    const box = page.locator('.markdown')
    await box.getByRole('heading', { name: 'Hostile' }).waitFor()
    await page.getByText('<img src=x onerror="window.__xss=\'license\'">', { exact: false }).first().waitFor()
    // Click everything that could be a trap.
    for (const name of ['details', 'data link', 'space link', 'mixed case', 'entity', 'named', 'math']) {
      const target = box.getByText(name, { exact: true }).first()
      if (await target.count()) await target.click({ timeout: 2_000 }).catch(() => {})
    }
    await page.waitForTimeout(300)
    expect(new URL(page.url()).pathname).toBe(`/skills/${SKILL}`)
    await expectNoScriptRan(page, 'skill')
    const kept = await box
      .locator('form, button, svg, math, noscript, meta, [href^="javascript" i], [href^="data:" i], [href^=" "]')
      .evaluateAll((found: any[]) => found.map((e) => e.outerHTML))
    expect(kept).toEqual([])
    // Links that leave this origin, however spelled, open beside the app and tell the other site nothing.
    for (const name of ['protocol-relative', 'backslash']) {
      const link = box.getByRole('link', { name })
      expect({ name, target: await link.getAttribute('target'), rel: await link.getAttribute('rel') }).toEqual({
        name,
        target: '_blank',
        rel: 'noopener noreferrer nofollow',
      })
    }
    // The renderer is still the app's own function (no element took its name).
    expect(await page.evaluate(() => typeof window.promptlibMarkdown)).toBe('function')
    expect(errors).toEqual([])
  }, 60_000)
})

describe.skipIf(!haveChromium)('what a link can put in the address', () => {
  test('search query, billing status and callback fragment are shown as text, never run', async () => {
    const { page, errors } = await visitor()
    await page.goto(`${base}/search?q=${encodeURIComponent(payload('query'))}`)
    await h1(page, 'Search')
    expect(await page.locator('#site-search').inputValue()).toBe(payload('query'))
    await page.waitForTimeout(300)
    await expectNoScriptRan(page, 'search query')

    await page.goto(`${base}/billing?status=${encodeURIComponent(payload('status'))}`)
    await h1(page, 'Plans')
    await expectNoScriptRan(page, 'billing status')

    await page.goto(
      `${base}/auth/callback#error=${encodeURIComponent(payload('error'))}&error_description=${encodeURIComponent(payload('description'))}`,
    )
    await h1(page, 'Sign-in failed')
    await page.getByText(payload('description')).waitFor()
    await expectNoScriptRan(page, 'callback')
    expect(errors).toEqual([])
  }, 60_000)

  test('names every object inherits are no known value: ?status=constructor shows no notice, #error=toString shows the description', async () => {
    const { page, errors } = await visitor()
    await page.goto(`${base}/auth/callback#error=toString&error_description=${encodeURIComponent('The provider said no.')}`)
    await h1(page, 'Sign-in failed')
    await page.getByText('The provider said no.').waitFor()
    for (const status of ['constructor', '__proto__', 'toString']) {
      await page.goto(`${base}/billing?status=${status}`)
      await h1(page, 'Plans')
      await page.locator('.tiers, .plans, table, .card').first().waitFor()
      expect({
        status,
        notices: await page.locator('main > .notice, .notice-success, .notice-info, .notice-warning, .notice-error').count(),
      }).toEqual({
        status,
        notices: 0,
      })
    }
    expect(errors).toEqual([])
  }, 60_000)

  test('after a log-in, ?next= never leaves the site, however it is spelled (tabs and line breaks the URL parser drops)', async () => {
    const user = await userOf('free')
    const { page, errors } = await visitor()
    await page.goto(`${base}/login?next=${encodeURIComponent('/\t/example.org/stolen')}`)
    await h1(page, 'Log in')
    await page.getByLabel('E-mail').fill(user.email)
    await page.getByLabel('Password').fill(user.password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await h1(page, 'Prompt library')
    expect(new URL(page.url()).origin).toBe(base)

    // The provider sign-in's redirect comes back in the fragment; the same rule holds there.
    const jwt = (await json(await t.request('/api/auth/login', { method: 'POST', json: { email: user.email, password: user.password } })))
      .access_token
    for (const next of [
      '/\t/example.org/',
      '/\n/example.org/',
      '/\r/example.org/',
      '/\t\\example.org/',
      '/%09/example.org/',
      'javascript:window.__xss=1',
    ]) {
      await page.goto(`${base}/auth/callback#access_token=${jwt}&token_type=bearer&redirect=${encodeURIComponent(next)}`)
      await page.waitForURL((url) => url.pathname !== '/auth/callback', { timeout: 10_000 })
      expect({ next, origin: new URL(page.url()).origin }).toEqual({ next, origin: base })
    }
    // A path on this site is still followed.
    await page.goto(`${base}/auth/callback#access_token=${jwt}&token_type=bearer&redirect=${encodeURIComponent('/favorites?x=1')}`)
    await h1(page, 'Favorites')
    await expectNoScriptRan(page, 'redirect')
    expect(errors).toEqual([])
  }, 60_000)

  test('the token: kept in localStorage only, out of the address bar, the cookies and every URL the app requests', async () => {
    const user = await userOf('starter')
    const jwt = (await json(await t.request('/api/auth/login', { method: 'POST', json: { email: user.email, password: user.password } })))
      .access_token
    const { page, requests } = await visitor()
    await page.goto(`${base}/auth/callback#access_token=${jwt}&token_type=bearer&redirect=%2Faccount`)
    await h1(page, 'Account')
    expect(page.url()).not.toContain(jwt)
    expect(await page.evaluate(() => localStorage.getItem('promptlib.token'))).toBe(jwt)
    expect(await page.context().cookies()).toEqual([])
    // It came in the fragment, which no request carries; the app sends it only as a header.
    expect(requests.length).toBeGreaterThan(3)
    expect(requests.filter((url) => url.includes(jwt) || url.includes('access_token'))).toEqual([])
    await page.goBack().catch(() => {})
    expect(page.url()).not.toContain(jwt)
  }, 60_000)

  test('a malformed percent-encoding in a page path is a page not found, never a blank app', async () => {
    const { page, errors } = await visitor()
    for (const path of ['/p/%E0%A4%A', '/c/%', '/skills/%zz']) {
      await page.goto(`${base}${path}`)
      await h1(page, 'Page not found')
      await page.getByRole('link', { name: 'Browse the library' }).waitFor()
    }
    expect(errors).toEqual([])
  }, 60_000)

  test('a prompt whose variables are named __proto__ and constructor: the page draws, each variable a field of its own', async () => {
    const { page, errors } = await visitor()
    await page.goto(`${base}/p/${PROTO_PROMPT}`)
    await h1(page, 'Inherited variable names')
    for (const name of ['__proto__', 'constructor', 'toString']) await page.locator(`#var-${name}`).waitFor()
    expect(await page.locator('#var-constructor').inputValue()).toBe('')
    expect(await page.locator('#var-toString').inputValue()).toBe('plain')
    expect(await page.locator('#prompt-text').innerText()).toBe('Set {{__proto__}} and {{constructor}} and plain.')
    await page.locator('#var-__proto__').fill('A')
    await page.locator('#var-constructor').fill('B')
    expect(await page.locator('#prompt-text').innerText()).toBe('Set A and B and plain.')
    expect(errors).toEqual([])
  }, 60_000)
})

/** One request written by hand: the path exactly as given (fetch would resolve `..` first). */
function rawGet(path: string, method = 'GET'): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port!, '127.0.0.1')
    let answer = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk) => (answer += chunk))
    socket.on('end', () => resolve(answer))
    socket.on('error', reject)
    socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)
  })
}

describe('static serving: odd paths', () => {
  const SECRET = /root:x:|"name":\s*"promptlib"|import .* from|JWT_SECRET|BEGIN [A-Z ]*PRIVATE KEY/

  test('traversal, NUL, encoded slashes, source and config names, 20,000 characters: the page or a 404 problem, never a file of the server', async () => {
    const paths = [
      '/..%2f..%2f..%2fetc%2fpasswd',
      '/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/%252e%252e/etc/passwd',
      '/..%5c..%5cetc%5cpasswd',
      '/%00',
      '/a%00.js',
      '/%00/../package.json',
      '/.env',
      '/package.json',
      '/src/main.ts',
      '/web/main.tsx',
      '/main.tsx',
      '/index.html',
      '/data/jwt-secret',
      '/chunk-%2e%2e%2fpackage.json',
      `/${'a'.repeat(8_000)}`,
      `/${'a'.repeat(20_000)}`,
      `/${'a/'.repeat(5_000)}x.js`,
    ]
    for (const path of paths) {
      for (const method of ['GET', 'HEAD']) {
        const res = await fetch(base + path, { method, redirect: 'manual' })
        const text = await res.text()
        const type = res.headers.get('content-type') ?? ''
        // Bun itself refuses a request line over its limit (431) before the app sees it.
        expect({ path: path.slice(0, 60), method, ok: [200, 404, 414, 431].includes(res.status) }).toEqual({
          path: path.slice(0, 60),
          method,
          ok: true,
        })
        expect(text).not.toMatch(SECRET)
        if (res.status === 414 || res.status === 431) continue
        if (res.status === 200) expect(type).toStartWith('text/html')
        else expect(type).toStartWith('application/problem+json')
        expect(res.headers.get('x-content-type-options')).toBe('nosniff')
        expect(res.headers.get('content-security-policy')).toContain("default-src 'none'")
      }
    }
  })

  test('a path with a literal `..` or `./` as the client wrote it: the page, a 404 or a 400, never a file', async () => {
    for (const path of [
      '/../../../../etc/passwd',
      '/./../package.json',
      '/chunk/../../.env',
      '/..\\..\\etc\\passwd',
      '/%2e%2e%2f%2e%2e%2fetc/passwd',
    ]) {
      const answer = await rawGet(path)
      const status = Number(answer.split(' ')[1])
      expect({ path, status: [200, 400, 404].includes(status) }).toEqual({ path, status: true })
      expect(answer).not.toMatch(SECRET)
    }
  })

  test('every file the page names, the Markdown renderer included, comes with nosniff and the CSP; so do 304s and 404s', async () => {
    const html = await (await fetch(`${base}/`)).text()
    const named = [...html.matchAll(/\s(?:src|href|content)="(\/[^"]+)"/g)].map((m) => m[1]!).filter((path) => !path.startsWith('/api/'))
    expect(named.length).toBeGreaterThanOrEqual(4)
    for (const path of named) {
      const res = await fetch(base + path)
      expect({ path, status: res.status }).toEqual({ path, status: 200 })
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
      const again = await fetch(base + path, { headers: { 'if-none-match': res.headers.get('etag')! } })
      expect({ path, status: again.status }).toEqual({ path, status: 304 })
      expect(again.headers.get('x-content-type-options')).toBe('nosniff')
      expect(again.headers.get('content-security-policy')).toContain("default-src 'none'")
    }
    const options = await fetch(`${base}/any/page`, { method: 'OPTIONS' })
    expect(options.status).toBe(204)
    expect(options.headers.get('x-content-type-options')).toBe('nosniff')
  })
})
