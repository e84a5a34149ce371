// The web app as its users meet it, in Debian's Chromium: what happens when the API is out of reach
// (a clear error and a way to try again), when the session ends in the middle of a visit (a notice
// that takes the focus and a way back to the same page after logging in), and keyboard-only use of
// the controls that swap themselves out (the optimizer's Optimize and Stop, a token's secret and its
// revocation, deleting the account) — the focus must never be left on nothing — and double presses
// of a slow action (one request, not two). Every page is watched for script and console errors.
//
// An in-process server (the test catalogue on SQLite, a fake OpenAI-compatible upstream) and one
// browser for the file. Skipped without /usr/bin/chromium (or CHROMIUM_PATH), with a printed reason.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page, Route } from 'playwright-core'
import { makeTestApp, type Registered, register, setTier, type TestApp } from './support/app'
import { haveChromium, serveToChromium, signInOnce } from './support/browser'
import { loadTestCatalogue } from './support/catalogue'
import { FakeLlm } from './support/fake-llm'

// Browser globals, for the functions that run in the page (page.evaluate); this program has no DOM types.
declare const document: any
declare const location: any
declare const localStorage: any
declare const sessionStorage: any

if (!haveChromium) console.log('web-usability: skipped, no Chromium at /usr/bin/chromium (apt-get install chromium, or set CHROMIUM_PATH)')

let t: TestApp
let llm: FakeLlm
let server: ReturnType<typeof Bun.serve>
let base = ''
let browser: Browser | undefined
const contexts: BrowserContext[] = []

beforeAll(async () => {
  if (!haveChromium) return
  llm = new FakeLlm()
  t = await makeTestApp(
    { OPTIMIZER_BASE_URL: llm.url, OPTIMIZER_API_KEY: 'sk-test-secret-key-0123456789', OPTIMIZER_MODEL: 'fake-model-1' },
    { databaseUrl: null, optimizerStream: { pingIntervalMs: 15_000, maxOpenStreamsPerUser: 3, maxStreamMs: 600_000 } },
  )
  await loadTestCatalogue(t)
  ;({ server, base, browser } = await serveToChromium(t))
}, 60_000)

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {})
  await browser?.close()
  server?.stop(true)
  llm?.stop()
})

interface Visit {
  page: Page
  context: BrowserContext
  /** script errors and console errors (a failed request the test caused on purpose excepted) */
  problems: string[]
}

async function visitor(options: { token?: string; width?: number; height?: number } = {}): Promise<Visit> {
  const context = await browser!.newContext({ viewport: { width: options.width ?? 1280, height: options.height ?? 900 } })
  contexts.push(context)
  if (options.token) await signInOnce(context, options.token)
  // A wait that fails, fails well inside the test's own time (a timed-out test takes the browser down with it).
  context.setDefaultTimeout(5000)
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (error) => void problems.push(`${page.url()}: ${error.message}`))
  page.on('console', (message) => {
    // Chromium prints every refused or failed request as a console error; these tests cause some on purpose.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`${page.url()}: ${message.text()}`)
  })
  return { page, context, problems }
}

async function userOf(tier: 'free' | 'starter' | 'pro'): Promise<Registered> {
  const user = await register(t, { name: `Usability ${tier}` })
  if (tier !== 'free') await setTier(t, user.user.id, tier)
  return user
}

const h1 = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor()

/** The focused element as "tag#id text", "body" when the focus is on nothing. */
function describeFocus(): string {
  const el = document.activeElement
  if (!el || el === document.body) return 'body'
  return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''} ${(el.textContent ?? '').trim().slice(0, 60)}`.trim()
}

/**
 * The focus is on `expected`, waiting up to a second for it: it moves in the render after a key's
 * event, and on a loaded machine the test's next step can come first. A person's next key would
 * wait for it too; a focus that never arrives still fails, with where it is instead.
 */
async function expectFocus(page: Page, expected: string): Promise<void> {
  const where = `(${describeFocus.toString()})()`
  await page.waitForFunction(`${where} === ${JSON.stringify(expected)}`, undefined, { timeout: 1000, polling: 'raf' }).catch(() => {})
  expect(await page.evaluate(where)).toBe(expected)
}

const refuse = (route: Route) => route.abort('connectionrefused')

/** Requests of `method` to `pattern` answered 400 ms late (a slow server); `sent()` counts them. */
async function slowed(context: BrowserContext, pattern: string, method: string): Promise<{ sent: () => number }> {
  let count = 0
  await context.route(pattern, async (route) => {
    if (route.request().method() !== method) return route.fallback()
    count++
    await Bun.sleep(400)
    await route.fallback()
  })
  return { sent: () => count }
}

const problemBody = (status: number, code: string, detail: string) => ({
  status,
  contentType: 'application/problem+json',
  body: JSON.stringify({ type: 'about:blank', title: code, status, code, detail }),
})

describe.skipIf(!haveChromium)('the web app, used', () => {
  test('the API out of reach: each page says so (not "not found") and "Try again" loads it once the API is back', async () => {
    const { page, context, problems } = await visitor()
    await context.route('**/api/**', refuse)

    await page.goto(`${base}/`)
    await page.getByRole('alert').getByText('The server could not be reached').waitFor()
    await context.unroute('**/api/**', refuse)
    await page.getByRole('button', { name: 'Try again' }).focus()
    await page.keyboard.press('Enter')
    await page
      .getByRole('link', { name: /Coding/ })
      .first()
      .waitFor()
    // The notice went with its button: the focus waits on the main content, never on nothing.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main')

    // A category the server was not asked about is not "not found".
    await context.route('**/api/**', refuse)
    await page.goto(`${base}/c/coding?sort=newest`)
    await h1(page, 'This category could not be loaded')
    expect(await page.title()).toBe('This category could not be loaded · promptlib')
    await context.unroute('**/api/**', refuse)
    await page.getByRole('button', { name: 'Try again' }).focus()
    await page.keyboard.press('Enter')
    await h1(page, 'Coding')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main')
    await page.locator('.prompt-card').first().waitFor()
    expect(new URL(page.url()).search).toBe('?sort=newest')

    // Search results, the same way.
    await context.route('**/api/search?**', refuse)
    await page.goto(`${base}/search?q=email`)
    await page.getByRole('alert').getByText('The server could not be reached').waitFor()
    await context.unroute('**/api/search?**', refuse)
    await page.getByRole('button', { name: 'Try again' }).click()
    await page.locator('[data-results-for="email"] .prompt-card').first().waitFor()

    // A 404 is still a plain "not found", without a retry that cannot help.
    await page.goto(`${base}/c/no-such-category`)
    await h1(page, 'Category not found')
    expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0)
    expect(problems).toEqual([])
  }, 30_000)

  test('the session ends mid-visit (a 401 on a later call): a notice takes the focus, and "Log in again" comes back to the same page', async () => {
    const user = await userOf('starter')
    const { page, context, problems } = await visitor({ token: user.token })
    await page.goto(`${base}/tokens`)
    await h1(page, 'Access tokens')
    await page.getByLabel('Name', { exact: true }).fill('laptop')
    await context.route('**/api/user/tokens', (route) =>
      route.request().method() === 'POST' ? route.fulfill(problemBody(401, 'token_expired', 'The token has expired.')) : route.fallback(),
    )
    await page.getByRole('button', { name: 'Create token' }).click()
    const notice = page.locator('.session-notice')
    await notice.getByText('Your session expired.').waitFor()
    // The form the user was in went with the session: the focus is on the notice, not lost on the page's body.
    expect(await page.evaluate(() => document.activeElement?.classList.contains('session-notice'))).toBe(true)
    await context.unroute('**/api/user/tokens')

    await notice.getByRole('link', { name: 'Log in again' }).click()
    await h1(page, 'Log in')
    expect(new URL(page.url()).searchParams.get('next')).toBe('/tokens')
    await page.getByLabel('E-mail').fill(user.email)
    await page.getByLabel('Password').fill(user.password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await h1(page, 'Access tokens')
    expect(new URL(page.url()).pathname).toBe('/tokens')
    expect(await notice.count()).toBe(0)

    // The header's "Log in" comes back to where it was followed from, too (a filtered list, here).
    await page.getByRole('button', { name: 'Log out' }).click()
    await h1(page, 'Prompt library')
    await page.goto(`${base}/c/coding?sort=title`)
    await h1(page, 'Coding')
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Log in' }).click()
    await h1(page, 'Log in')
    await page.getByLabel('E-mail').fill(user.email)
    await page.getByLabel('Password').fill(user.password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await h1(page, 'Coding')
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/c/coding?sort=title')
    expect(problems).toEqual([])
  }, 30_000)

  test('tokens by keyboard: the new secret takes the focus; revoking asks, Escape backs out, and a slow revoke is sent once', async () => {
    const user = await userOf('starter')
    const { page, context, problems } = await visitor({ token: user.token })
    await page.goto(`${base}/tokens`)
    await h1(page, 'Access tokens')
    await page.getByLabel('Name', { exact: true }).focus()
    await page.keyboard.type('ci runner')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: /Your new token/ }).waitFor()
    // Shown once: the focus is on the secret, selected, ready to copy.
    await expectFocus(page, 'input#new-token')
    const secret = await page.locator('#new-token').inputValue()
    expect(
      await page.evaluate(
        () =>
          document.getSelection()?.toString() ||
          document.activeElement.value.slice(document.activeElement.selectionStart, document.activeElement.selectionEnd),
      ),
    ).toBe(secret)
    await page.getByRole('button', { name: 'I have saved it' }).focus()
    await page.keyboard.press('Enter')
    await expectFocus(page, 'input#token-name')
    // Starter holds one token: a second is refused, in words, until one is revoked.
    await page.keyboard.type('second')
    await page.keyboard.press('Enter')
    const limit = page.getByRole('alert').getByText(/revoke one first/)
    await limit.waitFor()

    const ask = page.getByRole('button', { name: 'Revoke…' })
    await ask.focus()
    await page.keyboard.press('Enter')
    await expectFocus(page, 'button Revoke ci runner now')
    await page.keyboard.press('Escape')
    await expectFocus(page, 'button Revoke…')

    // A slow answer: pressing again while the first revoke is out sends nothing more.
    const deletes = await slowed(context, '**/api/user/tokens/*', 'DELETE')
    await page.keyboard.press('Enter')
    await page.keyboard.press('Enter')
    await page.keyboard.press('Enter')
    await page.getByText('No tokens yet.').waitFor()
    expect(deletes.sent()).toBe(1)
    // The row went with its buttons: the focus waits on the list's heading; the refusal it lifted went too.
    await expectFocus(page, 'h2#list-heading Your tokens')
    expect(await limit.count()).toBe(0)
    expect(problems).toEqual([])
  }, 30_000)

  test('the optimizer by keyboard at 375 px: the focus goes to Stop while it streams and to the result after; the text is a live region; failures and limits in words', async () => {
    const pro = await userOf('pro')
    const { page, problems } = await visitor({ token: pro.token, width: 375, height: 667 })
    llm.script = { tokens: Array.from({ length: 40 }, (_, i) => `word${i} `), tokenDelayMs: 150 }
    await page.goto(`${base}/optimizer`)
    await h1(page, 'Optimizer')
    await page.getByLabel('Your prompt').fill('Write a haiku about the sea.\nKeep it calm.')
    await page.getByRole('button', { name: 'Optimize', exact: true }).focus()
    await page.keyboard.press('Enter')
    await page.locator('#optimized-text', { hasText: 'word1' }).waitFor()
    // Streamed text is read out when it is complete (aria-busy while it streams), by a live region.
    expect(await page.locator('#optimized-text').getAttribute('aria-live')).toBe('polite')
    expect(await page.locator('#optimized-text').getAttribute('aria-busy')).toBe('true')
    await expectFocus(page, 'button Stop')
    await page.keyboard.press('Enter')
    await page.getByText('Stopped. What arrived before you stopped is below.').waitFor()
    await expectFocus(page, 'h2#result-heading Result')

    // Stopped before any text came: said so, with nothing promised below.
    llm.script = { tokens: ['late'], tokenDelayMs: 5000 }
    await page.getByRole('button', { name: 'Optimize', exact: true }).click()
    await page.getByText('Optimizing…').waitFor()
    await page.getByRole('button', { name: 'Stop' }).click()
    await page.getByText('Stopped before any text arrived.').waitFor()

    // To the end, then the side-by-side diff fits the phone's width.
    llm.script = { tokens: ['Write a haiku about the sea.\n', 'Keep it calm and slow.'], tokenDelayMs: 20 }
    await page.getByRole('button', { name: 'Optimize', exact: true }).click()
    await page.getByText(/^Done/).waitFor()
    await page.locator('table.diff').waitFor()
    await expectFocus(page, 'h2#result-heading Result')
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)

    // The upstream fails: said in words, as an alert.
    llm.script = { status: 500 }
    await page.getByRole('button', { name: 'Optimize', exact: true }).click()
    await page.getByRole('alert').getByText('The optimization engine failed.').waitFor()

    // Three streams already open elsewhere: the cap, in words.
    llm.script = { tokens: ['held'], hold: true }
    const held = new AbortController()
    const open = await Promise.all(
      [1, 2, 3].map(() =>
        fetch(`${base}/api/optimizer/optimize`, {
          method: 'POST',
          headers: { authorization: `Bearer ${pro.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: 'Hold this stream open.', mode: 'enhance' }),
          signal: held.signal,
        }),
      ),
    )
    expect(open.map((r) => r.status)).toEqual([200, 200, 200])
    await page.getByRole('button', { name: 'Optimize', exact: true }).click()
    await page
      .getByRole('alert')
      .getByText(/at most 3 may run at once/)
      .waitFor()
    held.abort()

    // A free user's daily quota, reached: what it is and when it resets.
    const free = await userOf('free')
    const second = await visitor({ token: free.token })
    llm.script = { tokens: ['Better.'] }
    await second.page.goto(`${base}/optimizer`)
    await h1(second.page, 'Optimizer')
    await second.page.getByLabel('Your prompt').fill('Summarize this article.')
    for (let i = 0; i < 3; i++) {
      await second.page.getByRole('button', { name: 'Optimize', exact: true }).click()
      await second.page.getByText(`Done · `).waitFor()
      await second.page.getByText(`${2 - i} of 3 optimizations left today.`).waitFor()
    }
    await second.page.getByRole('button', { name: 'Optimize', exact: true }).click()
    await second.page.getByText(/You have used all 3 optimizations of your plan today\. They reset at/).waitFor()
    expect(problems).toEqual([])
    expect(second.problems).toEqual([])
  }, 30_000)

  test('deleting the account by keyboard: the confirmation takes the focus, Escape gives it back to the button', async () => {
    const user = await userOf('free')
    const { page, problems } = await visitor({ token: user.token })
    await page.goto(`${base}/account`)
    await h1(page, 'Account')
    await page.getByRole('button', { name: 'Delete my account…' }).focus()
    await page.keyboard.press('Enter')
    await expectFocus(page, 'input#confirm-email')
    await page.keyboard.type('not my address')
    await page.keyboard.press('Escape')
    await expectFocus(page, 'button Delete my account…')
    // Opened again, it starts empty.
    await page.keyboard.press('Enter')
    expect(await page.locator('#confirm-email').inputValue()).toBe('')
    expect(problems).toEqual([])
  }, 20_000)

  test('logging in and favoriting by keyboard: a refused password and a slow favorite keep the focus on their buttons; the next page takes it on its heading', async () => {
    const user = await userOf('free')
    const { page, context, problems } = await visitor()
    await page.goto(`${base}/login`)
    await h1(page, 'Log in')
    await page.getByLabel('E-mail').fill(user.email)
    await page.getByLabel('Password').fill('not the password at all')
    await page.getByRole('button', { name: 'Log in' }).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('alert').waitFor()
    await expectFocus(page, 'button Log in')
    await page.getByLabel('Password').fill(user.password)
    await page.getByRole('button', { name: 'Log in' }).focus()
    await page.keyboard.press('Enter')
    await h1(page, 'Prompt library')
    await expectFocus(page, 'h1 Prompt library')

    const listed = (await (await t.request('/api/categories/coding/prompts?limit=1')).json()) as { items: { id: string; title: string }[] }
    await page.goto(`${base}/p/${listed.items[0]!.id}`)
    await h1(page, listed.items[0]!.title)
    const posts = await slowed(context, '**/api/user/favorites', 'POST')
    const add = page.getByRole('button', { name: 'Add to favorites' })
    await add.focus()
    await page.keyboard.press('Enter')
    await page.keyboard.press('Enter')
    await page.locator('button[aria-pressed="true"]', { hasText: 'Favorite' }).waitFor()
    expect(posts.sent()).toBe(1)
    await expectFocus(page, 'button ★ Favorite')
    expect(problems).toEqual([])
  }, 30_000)

  test('favorites: a removal that fails says so; a slow one is sent once, and the focus returns to the page', async () => {
    const user = await userOf('free')
    const listed = (await (await t.request('/api/categories/coding/prompts?limit=2')).json()) as { items: { id: string }[] }
    const ids = listed.items.map((p) => p.id)
    for (const id of ids) await t.request('/api/user/favorites', { method: 'POST', token: user.token, json: { prompt_id: id } })
    const { page, context, problems } = await visitor({ token: user.token })
    await page.goto(`${base}/favorites`)
    await h1(page, 'Favorites')
    const remove = page.getByRole('button', { name: /^Remove / })
    await remove.first().waitFor()

    await context.route('**/api/user/favorites/*', refuse)
    await remove.first().click()
    await page.getByRole('alert').getByText('The server could not be reached').waitFor()
    await context.unroute('**/api/user/favorites/*', refuse)

    const deletes = await slowed(context, '**/api/user/favorites/*', 'DELETE')
    await remove.first().focus()
    await page.keyboard.press('Enter')
    await page.keyboard.press('Enter')
    await page.waitForFunction(() => document.querySelectorAll('.card.favorite').length === 1)
    expect(deletes.sent()).toBe(1)
    await expectFocus(page, 'h1 Favorites')
    expect(problems).toEqual([])
  }, 20_000)
})
