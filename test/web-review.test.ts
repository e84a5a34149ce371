// The web app reviewed as an experienced user of a prompt library meets it, in Debian's Chromium:
// two tabs of one browser sharing a session (logging out or in in one is followed by the other), a
// page past the end of a list (the last favorite of the last page removed, an old link) moving to
// the last page there is, text in a right-to-left script laid out right to left, and the sign-in
// form leaving the history once it has done its work.
//
// An in-process server (the test catalogue plus a category of 25 prompts and an Arabic prompt, on
// SQLite) and one browser for the file. Skipped without /usr/bin/chromium (or CHROMIUM_PATH).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { makeTestApp, register, setTier, type TestApp } from './support/app'
import { haveChromium, serveToChromium, signInOnce } from './support/browser'
import { importRecords, loadTestCatalogue } from './support/catalogue'

// Browser globals, for the functions that run in the page (page.evaluate); this program has no DOM types.
declare const document: any
declare const getComputedStyle: any

if (!haveChromium) console.log('web-review: skipped, no Chromium at /usr/bin/chromium (apt-get install chromium, or set CHROMIUM_PATH)')

let t: TestApp
let server: ReturnType<typeof Bun.serve>
let base = ''
let browser: Browser | undefined
const contexts: BrowserContext[] = []

const CATEGORY = 'review-pages'
/** 25 prompts: a full first page of 20 and a second page of 5 */
const PAGED = Array.from({ length: 25 }, (_, i) => `77777777-7777-4777-8777-${String(i).padStart(12, '0')}`)
const ARABIC = '88888888-8888-4888-8888-000000000001'

beforeAll(async () => {
  if (!haveChromium) return
  t = await makeTestApp({}, { databaseUrl: null })
  await loadTestCatalogue(t)
  await importRecords(t, {
    categories: [{ id: CATEGORY, name: 'Review pages', description: 'Many prompts', subcategories: [] }],
    prompts: [
      ...PAGED.map((id, i) => ({
        id,
        title: `Paged prompt ${String(i).padStart(2, '0')}`,
        description: 'One of many.',
        category: CATEGORY,
        tags: ['paged'],
        content: `Body ${i} about {{topic}}.`,
      })),
      {
        id: ARABIC,
        title: 'اكتب مقالة قصيرة',
        description: 'وصف قصير للمقالة.',
        category: 'writing',
        tags: ['arabic'],
        content: 'اكتب مقالة عن {{topic}}، من فضلك.',
      },
    ],
  })
  ;({ server, base, browser } = await serveToChromium(t))
}, 60_000)

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {})
  await browser?.close()
  server?.stop(true)
})

async function visitor(options: { token?: string } = {}): Promise<{ page: Page; context: BrowserContext; problems: string[] }> {
  const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } })
  contexts.push(context)
  if (options.token) await signInOnce(context, options.token)
  context.setDefaultTimeout(5000)
  const page = await context.newPage()
  const problems: string[] = []
  context.on('page', (p) => p.on('pageerror', (error) => void problems.push(`${p.url()}: ${error.message}`)))
  page.on('pageerror', (error) => void problems.push(`${page.url()}: ${error.message}`))
  return { page, context, problems }
}

const h1 = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor()
const favorite = (token: string, prompt_id: string) =>
  t.request('/api/user/favorites', { method: 'POST', json: { prompt_id }, headers: { authorization: `Bearer ${token}` } })
const search = (page: Page) => new URL(page.url()).search
const direction = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => getComputedStyle(el).direction)

describe.skipIf(!haveChromium)('the web app, reviewed', () => {
  test('two tabs: logging out in one signs the other out at once; logging in as someone else in one switches the other', async () => {
    const alice = await register(t, { name: 'Alice Review' })
    const bob = await register(t, { name: 'Bob Review' })
    await favorite(alice.token, PAGED[0]!)
    await favorite(bob.token, PAGED[1]!)
    const { page, context, problems } = await visitor({ token: alice.token })
    await page.goto(`${base}/favorites`)
    await page.getByRole('link', { name: 'Paged prompt 00' }).waitFor()

    const other = await context.newPage()
    await other.goto(`${base}/account`)
    await other.getByRole('button', { name: 'Log out' }).click()
    await other.getByRole('link', { name: 'Log in' }).waitFor()

    // The first tab no longer shows Alice's favorites, nor offers to act as her.
    await page.getByRole('banner').getByRole('link', { name: 'Log in' }).waitFor()
    await page.getByText('You logged out in another tab.').waitFor()
    expect(await page.getByRole('link', { name: 'Paged prompt 00' }).count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Log out' }).count()).toBe(0)

    // Bob logs in in the second tab: the first follows with Bob's favorites, not Alice's.
    await other.getByRole('link', { name: 'Log in' }).click()
    await other.getByLabel('E-mail').fill(bob.email)
    await other.getByLabel('Password').fill(bob.password)
    await other.getByRole('button', { name: 'Log in' }).click()
    await other.getByRole('button', { name: 'Log out' }).waitFor()
    await page.getByRole('link', { name: 'Paged prompt 01' }).waitFor()
    expect(await page.getByRole('link', { name: 'Paged prompt 00' }).count()).toBe(0)
    expect(problems).toEqual([])
  }, 20_000)

  // Found by an audit: the routed page stayed mounted through the swap, with its state.
  test('two tabs: what one user left on a page (a token’s secret shown once) is gone when another signs in', async () => {
    const bob = await register(t, { name: 'Bob Secret' })
    const alice = await register(t, { name: 'Alice Next' })
    for (const u of [bob, alice]) await setTier(t, u.user.id, 'starter')
    const { page, context, problems } = await visitor({ token: bob.token })
    await page.goto(`${base}/tokens`)
    await page.getByLabel('Name').fill('secret-of-bob')
    await page.getByRole('button', { name: 'Create token' }).click()
    await page.getByRole('heading', { name: /Your new token “secret-of-bob”/ }).waitFor()

    const other = await context.newPage()
    await other.goto(`${base}/account`)
    await other.getByRole('button', { name: 'Log out' }).click()
    await page.getByText('You logged out in another tab.').waitFor()
    expect(await page.getByText('secret-of-bob').count()).toBe(0)
    // Alice signs in there: the first tab shows her tokens page, with nothing of Bob's.
    await other.evaluate((token) => localStorage.setItem('promptlib.token', token), alice.token)
    await page.getByRole('heading', { level: 1, name: 'Access tokens' }).waitFor()
    await page.getByRole('button', { name: 'Create token' }).waitFor()
    expect(await page.getByText('secret-of-bob').count()).toBe(0)
    expect(await page.locator('input[value^="plib_pat_"]').count()).toBe(0)
    expect(problems).toEqual([])
  }, 20_000)

  test('two tabs: a late 401 for the token a password change replaced does not sign out the new session', async () => {
    const user = await register(t, { name: 'Late Answer' })
    const { page, context, problems } = await visitor({ token: user.token })
    await page.goto(`${base}/account`)
    await page.getByRole('button', { name: 'Log out' }).waitFor()
    const other = await context.newPage()
    // The other tab's profile request, with the old token, is answered only after the new token is in place.
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    await other.route('**/api/user/me', async (route) => {
      if ((route.request().headers().authorization ?? '').endsWith(user.token)) await held
      await route.continue()
    })
    const loading = other.goto(`${base}/account`)
    await Bun.sleep(300)
    const changed = await t.request('/api/user/password', {
      method: 'POST',
      token: user.token,
      json: { current_password: user.password, new_password: 'a passphrase after the change' },
    })
    expect(changed.status).toBe(204)
    const login = await t.request('/api/auth/login', { method: 'POST', json: { email: user.email, password: 'a passphrase after the change' } })
    const fresh = ((await login.json()) as { access_token: string }).access_token
    await page.evaluate((token) => localStorage.setItem('promptlib.token', token), fresh)
    await other.waitForFunction((token) => localStorage.getItem('promptlib.token') === token, fresh)
    release()
    await loading
    await Bun.sleep(500)
    expect(await page.evaluate(() => localStorage.getItem('promptlib.token'))).toBe(fresh)
    expect(await other.getByText('You were signed out.').count()).toBe(0)
    await other.getByRole('button', { name: 'Log out' }).waitFor()
    expect(problems).toEqual([])
  }, 20_000)

  test('past the end of a list: removing the last favorite of page 2, or an old link, shows the last page there is, not "nothing here"', async () => {
    const user = await register(t)
    for (const id of PAGED.slice(0, 21)) expect((await favorite(user.token, id)).status).toBe(201)
    const { page, problems } = await visitor({ token: user.token })

    await page.goto(`${base}/favorites?offset=20`)
    await page.locator('.favorite').first().waitFor()
    expect(await page.locator('.favorite').count()).toBe(1)
    await page.getByRole('button', { name: /^Remove/ }).click()
    // The 20 that are left, on the first page, rather than "No favorites yet".
    await page.locator('.favorite').nth(19).waitFor()
    expect(await page.getByText('No favorites yet').count()).toBe(0)
    expect(search(page)).toBe('')

    // A category page past its end (25 prompts): its last page, 5 prompts, with the way back.
    await page.goto(`${base}/c/${CATEGORY}?sort=title&offset=60`)
    await page.getByRole('link', { name: 'Paged prompt 24' }).waitFor()
    expect(search(page)).toBe('?sort=title&offset=20')
    expect(await page.locator('.prompt-card').count()).toBe(5)
    await page.getByRole('link', { name: '← Previous' }).waitFor()

    // Search results the same way: not "25 prompts found" above an empty list.
    await page.goto(`${base}/search?q=paged&offset=40`)
    await page.locator('.results .prompt-card').first().waitFor()
    expect(search(page)).toBe('?q=paged&offset=20')
    expect(await page.locator('.results .prompt-card').count()).toBe(5)

    // Back goes where the reader came from, not to the empty page.
    await page.goBack()
    expect(new URL(page.url()).pathname).toBe(`/c/${CATEGORY}`)
    expect(problems).toEqual([])
  }, 20_000)

  test('a prompt in Arabic reads right to left (title, description, text, its field, its card); English stays left to right', async () => {
    const { page, problems } = await visitor()
    await page.goto(`${base}/p/${ARABIC}`)
    await h1(page, 'اكتب مقالة قصيرة')
    expect(await direction(page, 'main h1')).toBe('rtl')
    expect(await direction(page, 'main .lead')).toBe('rtl')
    expect(await direction(page, '#prompt-text')).toBe('rtl')
    await page.getByLabel(/Topic/).fill('القهوة')
    expect(await direction(page, '#var-topic')).toBe('rtl')

    await page.goto(`${base}/search?q=arabic`)
    await page.locator('.results .prompt-card').first().waitFor()
    expect(await direction(page, '.results .prompt-card h3')).toBe('rtl')
    expect(await direction(page, '.results .prompt-card .card-text')).toBe('rtl')

    await page.goto(`${base}/p/${PAGED[0]}`)
    await h1(page, 'Paged prompt 00')
    expect(await direction(page, 'main h1')).toBe('ltr')
    expect(await direction(page, '#prompt-text')).toBe('ltr')
    expect(problems).toEqual([])
  }, 15_000)

  test('after logging in, Back goes to the page before the sign-in form, not back to the form', async () => {
    const user = await register(t)
    const { page, problems } = await visitor()
    await page.goto(`${base}/`)
    await page.goto(`${base}/c/coding`)
    await h1(page, 'Coding')
    await page.getByRole('banner').getByRole('link', { name: 'Log in' }).click()
    await h1(page, 'Log in')
    await page.getByLabel('E-mail').fill(user.email)
    await page.getByLabel('Password').fill(user.password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await h1(page, 'Coding')
    await page.getByRole('button', { name: 'Log out' }).waitFor()
    await page.goBack()
    expect(new URL(page.url()).pathname).toBe('/c/coding')
    await h1(page, 'Coding')
    expect(await page.getByRole('button', { name: 'Log in' }).count()).toBe(0)
    expect(problems).toEqual([])
  }, 15_000)
})
