// The web app end to end in Debian's Chromium, against a real server process (from source, SQLite,
// the demo catalogue) with the test suite's fakes on loopback: an OpenAI-compatible upstream for the
// optimizer (so a stream can be slow enough to stop), Stripe for checkout and webhooks, an OAuth
// provider for sign-in. Every page is scanned with axe-core (no serious or critical violation) and
// photographed at 1280 and 390 px into artifacts/screenshots/ (kept by CI).
//
// Skipped without /usr/bin/chromium (or CHROMIUM_PATH), with a printed reason; CI installs it. The
// PostgreSQL pass skips it too: it checks the app, which calls the same API on either engine.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { tempDir, TEST_ENGINE } from './support/app'
import { checkoutCompleted } from './support/billing'
import { axeScan, haveChromium, launchChromium, SCREENSHOTS, screenshot, signInOnce, watch } from './support/browser'
import { FakeLlm } from './support/fake-llm'
import { type FakePaypal, startFakePaypal } from './support/fake-paypal'
import { type FakeStripe, signStripe, startFakeStripe } from './support/fake-stripe'
import { MockProvider } from './support/oauth-provider'
import { cli, freePort, type ServerProcess, startServer } from './support/process'

// Browser globals, for the functions that run in the page (page.evaluate); this program has no DOM types.
declare const window: any
declare const document: any
declare const location: any
declare const localStorage: any
declare const sessionStorage: any
declare const navigator: any
declare const getComputedStyle: any

const run = haveChromium && TEST_ENGINE === 'sqlite'
if (!haveChromium) console.log('web-browser: skipped, no Chromium at /usr/bin/chromium (apt-get install chromium, or set CHROMIUM_PATH)')
else if (!run) console.log('web-browser: skipped on the PostgreSQL pass (the app calls the same API on either engine; it runs on the SQLite pass)')

let server: ServerProcess | undefined
let browser: Browser | undefined
let llm: FakeLlm | undefined
let stripe: FakeStripe | undefined
let paypal: FakePaypal | undefined
let idp: MockProvider | undefined
let env: Record<string, string> = {}
let base = ''
const contexts: BrowserContext[] = []
const problems: string[] = []
const foreign: string[] = []

beforeAll(async () => {
  if (!run) return
  llm = new FakeLlm()
  stripe = startFakeStripe()
  paypal = startFakePaypal()
  idp = await MockProvider.start('oidc')
  const port = freePort()
  base = `http://127.0.0.1:${port}`
  env = {
    DATA_DIR: tempDir(),
    PORT: String(port),
    PUBLIC_URL: base,
    AUTH_RATE_LIMIT: '0',
    LOG_LEVEL: 'warn',
    ...stripe.env(),
    ...paypal.env(),
    OPTIMIZER_BASE_URL: llm.url,
    OPTIMIZER_API_KEY: 'sk-test-secret-key-0123456789',
    OPTIMIZER_MODEL: 'fake-model-1',
    ...idp.env('A'),
    // The provider asks for consent on its own page, as a real one does.
    OAUTH_A_AUTHORIZE_URL: `${idp.url}/consent`,
  }
  server = await startServer(env)
  browser = await launchChromium()
  console.log(`web-browser: screenshots in ${SCREENSHOTS}`)
}, 60_000)

afterAll(async () => {
  await browser?.close()
  server?.kill()
  await server?.exited
  llm?.stop()
  stripe?.close()
  paypal?.close()
  await idp?.stop()
})

/** A browser context of one visitor; signed in when given a token (as the app keeps it: localStorage). */
async function visitor(options: { token?: string; width?: number; bypassCSP?: boolean; clipboard?: boolean } = {}): Promise<Page> {
  const context = await browser!.newContext({ viewport: { width: options.width ?? 1280, height: 900 }, bypassCSP: options.bypassCSP ?? false })
  contexts.push(context)
  if (options.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base })
  if (options.token) await signInOnce(context, options.token)
  // The axe contexts bypass the CSP to inject axe; only the others watch for CSP refusals.
  if (!options.bypassCSP) {
    const watched = watch(context, base)
    const page = await context.newPage()
    afterChecks.push(() => {
      problems.push(...watched.problems)
      foreign.push(...watched.foreign)
    })
    return page
  }
  return context.newPage()
}
const afterChecks: (() => void)[] = []

interface User {
  id: string
  email: string
  token: string
}

let users = 0
async function user(tier: 'free' | 'starter' | 'pro' = 'free'): Promise<User> {
  const email = `web-${Date.now().toString(36)}-${++users}@example.com`
  const res = await fetch(`${base}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'a long enough passphrase', name: `Web User ${users}` }),
  })
  expect(res.status).toBe(201)
  const body = (await res.json()) as { access_token: string; user: { id: string } }
  if (tier !== 'free') expect(cli(['user', 'set-tier', email, tier], env).code).toBe(0)
  return { id: body.user.id, email, token: body.access_token }
}

async function api<T = unknown>(path: string, token?: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}/api${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} })
  return { status: res.status, body: (await res.json().catch(() => null)) as T }
}

const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor({ timeout: 15_000 })

/** The demo prompt with the most variables: its id, content and variables, read through the API by a paid user. */
async function promptWithVariables(token: string) {
  const found = await api<{ items: { id: string; title: string }[] }>('/search?q=onboarding%20email%20activation', token)
  const id = found.body.items.find((p) => p.title === 'Onboarding email sequence that drives activation')!.id
  return (await api<{ id: string; title: string; content: string; variables: { name: string; default: string | null }[] }>(`/prompts/${id}`, token))
    .body
}

describe.skipIf(!run)('the web app', () => {
  test('register → search as you type → open a prompt → fill its variables → copy; favorite and unfavorite', async () => {
    const helper = await user('starter')
    const prompt = await promptWithVariables(helper.token)
    const page = await visitor({ clipboard: true })
    const email = `web-ui-${Date.now().toString(36)}@example.com`

    await page.goto(`${base}/register`)
    await heading(page, 'Create an account')
    await page.getByLabel('Name').fill('Ada Web')
    await page.getByLabel('E-mail').fill(email)
    await page.getByLabel('Password').fill('correct horse battery staple')
    await page.getByRole('button', { name: 'Create account' }).click()
    await heading(page, 'Prompt library')
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Account' }).waitFor()

    const search = page.getByRole('searchbox', { name: 'Search prompts' })
    await search.pressSequentially('onboarding emai', { delay: 40 })
    await page.locator('[data-results-for="onboarding emai"]').waitFor()
    expect(new URL(page.url()).pathname).toBe('/search')
    // The search box kept the focus all along (typing never lost a key).
    expect(await search.inputValue()).toBe('onboarding emai')
    const result = page.locator('.prompt-card', { hasText: prompt.title })
    expect(await result.locator('mark').count()).toBeGreaterThan(0)
    await result.getByRole('link', { name: prompt.title }).click()
    await heading(page, prompt.title)

    const values: Record<string, string> = {
      product_name: 'Acme Notes',
      product_summary: 'shared notebooks for small teams',
      activation_event: 'the first shared note',
      audience: 'team leads who sign up from the pricing page',
    }
    // Before filling: the empty ones stay {{name}}; the default is already in.
    expect(await page.locator('#prompt-text').innerText()).toContain('{{product_name}}')
    expect(await page.getByLabel('Number of emails').inputValue()).toBe('5')
    for (const [name, value] of Object.entries(values)) {
      await page.getByLabel(new RegExp(`^${name.replaceAll('_', ' ')}`, 'i')).fill(value)
    }
    const expected = prompt.content.replace(
      /\{\{\s*([\p{L}_][\p{L}\p{N}_.-]*)\s*(?::[^{}]*)?\}\}/gu,
      (_, name: string) => values[name] ?? (name === 'number_of_emails' ? '5' : `{{${name}}}`),
    )
    expect(expected).not.toContain('{{')
    expect(await page.locator('#prompt-text').innerText()).toBe(expected)

    await page.getByRole('button', { name: 'Copy prompt' }).click()
    await page.getByText('Copied to the clipboard.').waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(expected)

    const token = (await page.evaluate(() => localStorage.getItem('promptlib.token')))!
    const favorite = page.getByRole('button', { name: /Add to favorites/ })
    await favorite.click()
    await page.locator('button[aria-pressed="true"]', { hasText: 'Favorite' }).waitFor()
    expect((await api<{ items: { prompt_id: string }[] }>('/user/favorites', token)).body.items.map((f) => f.prompt_id)).toEqual([prompt.id])
    await page.reload()
    await page.locator('button[aria-pressed="true"]', { hasText: 'Favorite' }).waitFor()
    await page.getByRole('link', { name: 'Favorites' }).click()
    await heading(page, 'Favorites')
    await page.getByRole('link', { name: prompt.title }).waitFor()
    await page.getByRole('button', { name: `Remove ${prompt.title}` }).click()
    await page.getByText('No favorites yet').waitFor()
    expect((await api<{ items: unknown[] }>('/user/favorites', token)).body.items).toEqual([])
  }, 60_000)

  test('search results in a listing’s order: the Order control puts it in the address, and the page is the API’s page for it', async () => {
    const page = await visitor()
    await page.goto(`${base}/search?q=email`)
    await page.locator('[data-results-for="email"]').waitFor()
    const titles = () => page.locator('.prompt-card h3').allInnerTexts()
    const ranked = await titles()
    await page.getByLabel('Order').selectOption({ label: 'Title A–Z' })
    await page.waitForURL((url) => url.searchParams.get('sort') === 'title')
    const byTitle = (await api<{ items: { title: string }[] }>('/search?q=email&sort=title')).body.items.map((p) => p.title)
    expect(byTitle.length).toBeGreaterThan(2)
    expect(byTitle).not.toEqual(ranked)
    await page.waitForFunction(
      (expected) => [...document.querySelectorAll('.prompt-card h3')].map((h) => h.innerText).join('\n') === expected,
      byTitle.join('\n'),
    )
    // Typing on keeps the order (and the other filters); the words change.
    const box = page.getByRole('searchbox', { name: 'Search prompts' })
    await box.press('End')
    await box.pressSequentially('s', { delay: 40 })
    await page.waitForURL((url) => url.searchParams.get('q') === 'emails' && url.searchParams.get('sort') === 'title')
    await page.locator('[data-results-for="emails"]').waitFor()
    await box.press('Backspace')
    await page.locator('[data-results-for="email"]').waitFor()
    expect(new URL(page.url()).searchParams.get('sort')).toBe('title')
    // Reloaded, the address keeps the order; back to the best matches.
    await page.reload()
    await page.locator('[data-results-for="email"]').waitFor()
    expect(await titles()).toEqual(byTitle)
    await page.getByLabel('Order').selectOption({ label: 'Best match' })
    await page.waitForURL((url) => !url.searchParams.has('sort'))
    await page.waitForFunction(
      (expected) => [...document.querySelectorAll('.prompt-card h3')].map((h) => h.innerText).join('\n') === expected,
      ranked.join('\n'),
    )
  })

  test('tokens: a free account is asked to upgrade; on starter, create (the secret shown once, copied), use, revoke', async () => {
    const free = await user()
    const freePage = await visitor({ token: free.token })
    await freePage.goto(`${base}/tokens`)
    await heading(freePage, 'Access tokens')
    await freePage.getByText('Creating access tokens needs the starter plan or higher.').waitFor()

    const starter = await user('starter')
    const page = await visitor({ token: starter.token, clipboard: true })
    await page.goto(`${base}/tokens`)
    await heading(page, 'Access tokens')
    await page.getByText('No tokens yet.').waitFor()
    await page.getByLabel('Name').fill('CI pipeline')
    await page.getByLabel('Expires after (days)').fill('30')
    await page.getByRole('button', { name: 'Create token' }).click()
    const secret = await page.getByLabel(/^Token \(expires/).inputValue()
    expect(secret).toMatch(/^plib_pat_[0-9A-Za-z]{36}$/)
    await page.getByRole('button', { name: 'Copy token' }).click()
    await page.getByText('Copied to the clipboard.').waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret)
    expect((await api('/user/me', secret)).status).toBe(200)

    const row = page.locator('.token', { hasText: 'CI pipeline' })
    await row.waitFor()
    // Gone once acknowledged: the secret is not kept anywhere on the page.
    await page.getByRole('button', { name: 'I have saved it' }).click()
    expect(await page.content()).not.toContain(secret)
    await row.getByRole('button', { name: 'Revoke…' }).click()
    await row.getByRole('button', { name: 'Revoke CI pipeline now' }).click()
    await page.getByText('No tokens yet.').waitFor()
    expect((await api('/user/me', secret)).status).toBe(401)
  }, 60_000)

  test('optimizer: the rewrite streams in, the diff shows it side by side; a second run is stopped and recorded as aborted', async () => {
    const me = await user()
    const page = await visitor({ token: me.token })
    const tokens = ['## Role\n', 'You are a careful editor.\n\n', '## Task\n', 'Summarize the meeting notes in 5 bullet points.']
    llm!.script = { tokens, tokenDelayMs: 150 }
    await page.goto(`${base}/optimizer`)
    await heading(page, 'Optimizer')
    await page.getByText('3 of 3 optimizations left today.').waitFor()
    await page.getByLabel('Your prompt').fill('Summarize the meeting notes in 5 bullet points.')
    await page.getByLabel('Structured Format').check()
    await page.getByRole('button', { name: 'Optimize', exact: true }).click()
    // Mid-stream: the first pieces are on screen while Stop is still live.
    const output = page.locator('#optimized-text')
    const shows = (text: string) => page.waitForFunction((t) => document.getElementById('optimized-text')?.textContent?.includes(t), text)
    await shows('You are a careful editor.')
    expect(await page.getByRole('button', { name: 'Stop' }).isEnabled()).toBe(true)
    expect(await output.innerText()).not.toContain('Summarize the meeting notes')
    await page.getByText(/^Done/).waitFor()
    expect(await output.innerText()).toBe(tokens.join(''))
    const diff = page.locator('table.diff').first()
    await diff.waitFor()
    expect(await diff.locator('ins').allInnerTexts()).toContain('You are a careful editor.')
    expect(llm!.requests.at(-1)!.body.messages.at(-1).content).toContain('Summarize the meeting notes')

    llm!.script = { tokens: Array.from({ length: 40 }, (_, i) => `piece ${i} `), tokenDelayMs: 250 }
    await page.getByRole('button', { name: 'Optimize', exact: true }).click()
    await shows('piece 1')
    await page.getByRole('button', { name: 'Stop' }).click()
    await page.getByText('Stopped. What arrived before you stopped is below.').waitFor()
    expect(await llm!.clientGone(llm!.requests.at(-1)!, 5000)).not.toBeNull()
    let history: { items: { status: string }[] } = { items: [] }
    for (let i = 0; i < 50 && history.items[0]?.status !== 'aborted'; i++) {
      await Bun.sleep(100)
      history = (await api<typeof history>('/optimizer/history', me.token)).body
    }
    expect(history.items.map((h) => h.status)).toEqual(['aborted', 'completed'])
    await page.getByText('1 of 3 optimizations left today.').waitFor()
    await page.locator('.history details').first().waitFor()
    // The page's own history says so too, without another run (it was read before the server recorded the stop).
    await page.locator('.history summary', { hasText: 'aborted' }).first().waitFor({ timeout: 3000 })
    expect(await page.locator('.history summary', { hasText: 'running' }).count()).toBe(0)
    // The history names modes as the picker does, not by their ids.
    expect(await page.locator('.history summary strong').allInnerTexts()).toEqual(['Structured Format', 'Structured Format'])
  }, 60_000)

  test('the daily limit, honestly: what is left and when it resets; the 11th prompt of a free account is refused, a re-opened one is free', async () => {
    const me = await user()
    const helper = await user('starter')
    const ids: string[] = []
    for (const category of ['writing', 'coding']) {
      ids.push(...(await api<{ items: { id: string }[] }>(`/categories/${category}/prompts?limit=20`, helper.token)).body.items.map((p) => p.id))
    }
    expect(ids.length).toBeGreaterThanOrEqual(11)
    for (const id of ids.slice(0, 9)) expect((await api(`/prompts/${id}`, me.token)).status).toBe(200)

    const page = await visitor({ token: me.token })
    await page.goto(`${base}/p/${ids[9]}`)
    await page.locator('#prompt-text').waitFor()
    const meter = page.locator('#meter-text')
    expect(await meter.innerText()).toMatch(
      /^0 of 10 free prompt views left today \(your account\)\. Resets at \d\d?:\d\d( [AP]M)? \(in (\d+ h( \d+ min)?|\d+ min|under a minute)\)\.$/,
    )

    await page.goto(`${base}/p/${ids[10]}`)
    await heading(page, 'Daily limit reached')
    expect(await page.locator('main').innerText()).toMatch(
      /You have opened 10 of 10 free prompts today\. The limit resets at \d\d?:\d\d( [AP]M)? \(in /,
    )
    await page.getByRole('link', { name: 'Upgrade for unlimited prompts' }).waitFor()
    await screenshot(page, 'daily-limit-1280')

    await page.goto(`${base}/p/${ids[0]}`)
    await page.locator('#prompt-text').waitFor()

    // Anonymous readers see their per-address allowance.
    const anonymous = await visitor()
    await anonymous.goto(`${base}/p/${ids[0]}`)
    await anonymous.locator('#prompt-text').waitFor()
    expect(await anonymous.locator('#meter-text').innerText()).toMatch(/^\d+ of 10 free prompt views left today \(this network address\)\./)
    await anonymous.getByRole('link', { name: 'A free account' }).waitFor()
  }, 60_000)

  test('checkout: the plans page reaches the fake Stripe with the user and tier; the webhook upgrades; ?status= is shown', async () => {
    const me = await user()
    const page = await visitor({ token: me.token })
    // The hosted checkout lives at Stripe; here the browser's request to it is answered by the test.
    await page
      .context()
      .route('https://checkout.stripe.test/**', (route) =>
        route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Fake checkout</title><h1>Fake checkout</h1>' }),
      )
    await page.goto(`${base}/billing`)
    await heading(page, 'Plans')
    expect(await page.locator('.plan.current h2').innerText()).toBe('Free')
    const sessionsBefore = stripe!.requests.filter((r) => r.path === '/v1/checkout/sessions').length
    await page.getByRole('button', { name: 'Pay by card for Pro' }).click()
    await page.waitForURL('https://checkout.stripe.test/c/pay/**')
    const sessions = stripe!.requests.filter((r) => r.path === '/v1/checkout/sessions')
    expect(sessions.length).toBe(sessionsBefore + 1)
    const params = sessions.at(-1)!.params
    expect(params.get('mode')).toBe('subscription')
    expect(params.get('client_reference_id')).toBe(me.id)
    expect(params.get('metadata[tier]')).toBe('pro')
    expect(params.get('success_url')).toStartWith(`${base}/billing?status=success`)
    expect(params.get('cancel_url')).toBe(`${base}/billing?status=cancelled`)

    await page.goto(`${base}/billing?status=cancelled`)
    await page.getByText('The checkout was cancelled; nothing was charged.').waitFor()

    // A checkout that fails: the error is said and the keyboard's focus stays on the button pressed.
    await page.route('**/api/payments/checkout', async (route) => {
      await Bun.sleep(300)
      await route.abort()
    })
    await page.getByRole('button', { name: 'Pay by card for Pro' }).focus()
    await page.keyboard.press('Enter')
    await page.getByText(/could not be reached/).waitFor()
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Pay by card for Pro')
    await page.unroute('**/api/payments/checkout')

    // The wallet provider too: a lifetime order at PayPal, its approval page answered by the test.
    await page
      .context()
      .route('https://www.paypal.test/**', (route) =>
        route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Fake PayPal</title><h1>Fake PayPal</h1>' }),
      )
    await page.getByRole('button', { name: 'Pay with PayPal for Lifetime' }).click()
    await page.waitForURL('https://www.paypal.test/checkoutnow?token=**')
    const order = paypal!.requests.filter((r) => r.method === 'POST' && r.path === '/v2/checkout/orders').at(-1)
    expect(JSON.stringify(order?.body)).toContain(me.id)
    await page.goto(`${base}/billing?status=error`)
    await page.getByText(/The payment could not be completed/).waitFor()

    const event = checkoutCompleted({ id: me.id }, 'pro')
    const delivered = await fetch(`${base}/api/payments/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': await signStripe(event) },
      body: event,
    })
    expect(delivered.status).toBe(200)
    await page.goto(`${base}/billing?status=success`)
    await page.getByText(/The payment went through/).waitFor()
    await page.locator('.plan.current h2', { hasText: 'Pro' }).waitFor()
    await page.getByText('active').first().waitFor()
  }, 60_000)

  test('sign-in through a configured provider: its button, the provider’s consent page, back on /auth/callback, signed in', async () => {
    const email = `oauth-web-${Date.now()}@example.com`
    idp!.defaultUser = idp!.add({ sub: `web-${Date.now()}`, email, email_verified: true, name: 'Provider User' })
    // Its button is named after the provider: the preset's name, or (overridden, as here) the host of its page.
    const config = await api<{ sign_in: { providers: { id: string; name: string }[] } }>('/config')
    expect(config.body.sign_in.providers).toEqual([{ id: 'provider-a', name: new URL(idp!.url).hostname }])
    const page = await visitor()
    await page.goto(`${base}/login?next=/account`)
    await heading(page, 'Log in')
    await page.getByRole('link', { name: `Continue with ${new URL(idp!.url).hostname}` }).click()
    await page.waitForURL(`${idp!.url}/consent?**`)
    await page.click('#allow')
    await heading(page, 'Account')
    expect(new URL(page.url()).pathname).toBe('/account')
    expect(new URL(page.url()).hash).toBe('')
    await page.getByText(email).waitFor()

    await page.goto(`${base}/auth/callback#error=access_denied&error_description=nope`)
    await heading(page, 'Sign-in failed')
    await page.getByText('The sign-in was cancelled at the provider.').waitFor()
  }, 60_000)

  test('skills: below pro an upgrade prompt; pro searches, opens one, its Markdown rendered and sanitized (renderer loaded only there), its files listed', async () => {
    // A skill whose instructions try everything an author could slip into Markdown.
    const folder = join(tempDir(), 'hostile-markdown')
    mkdirSync(join(folder, 'scripts'), { recursive: true })
    writeFileSync(join(folder, 'scripts', 'run.sh'), 'echo hi\n')
    writeFileSync(
      join(folder, 'SKILL.md'),
      [
        '---',
        'name: hostile-markdown',
        'description: Checks that Markdown from a skill cannot run script in the app.',
        'license: MIT',
        '---',
        '# Hostile instructions',
        '',
        'Some **bold** text and a [safe link](https://example.com/docs).',
        '',
        '<script>window.__xss = "script"</script>',
        '',
        '<img src="x" onerror="window.__xss = \'img\'">',
        '',
        '<a href="javascript:window.__xss = \'href\'">click me</a>',
        '',
        '<iframe src="https://example.com"></iframe>',
        '',
        '<div style="position:fixed;inset:0" onclick="window.__xss = \'div\'">overlay</div>',
        '',
        '![remote image](https://example.com/tracker.png) and [a script link](javascript:window.__xss=1)',
        '',
        '- step one',
        '- step two',
        '',
        '| Label | Meaning |',
        '|---|---|',
        '| BLOCKER | must be fixed before the change is merged, whatever the deadline says about it |',
        '| QUESTION | a question for the author, who answers it before anyone approves the change |',
        '',
      ].join('\n'),
    )
    expect(cli(['import', folder], env).code).toBe(0)

    const free = await user()
    const freePage = await visitor({ token: free.token })
    await freePage.goto(`${base}/skills`)
    await freePage.getByText('Skills needs the pro plan or higher.').waitFor()

    const pro = await user('pro')
    const page = await visitor({ token: pro.token })
    const scripts: string[] = []
    page.on('request', (r) => r.resourceType() === 'script' && scripts.push(new URL(r.url()).pathname))
    await page.goto(`${base}/skills`)
    await heading(page, 'Skills')
    const renderer = await page.locator('meta[name="promptlib-markdown"]').getAttribute('content')
    expect(renderer!).toMatch(/^\/chunk-[a-z0-9]+\.js$/)
    expect(scripts).not.toContain(renderer!)
    await page.getByRole('searchbox', { name: 'Search skills' }).pressSequentially('hostile', { delay: 30 })
    await page.getByRole('link', { name: 'hostile-markdown' }).click()
    await heading(page, 'hostile-markdown')
    const box = page.locator('.markdown')
    // its `# heading` sits below the page's own headings
    await box.getByRole('heading', { level: 3, name: 'Hostile instructions' }).waitFor()
    expect(await page.locator('h1').count()).toBe(1)
    expect(scripts).toContain(renderer!)
    expect(await box.locator('strong').innerText()).toBe('bold')
    expect(await box.locator('li').allInnerTexts()).toEqual(['step one', 'step two'])
    const safe = box.getByRole('link', { name: 'safe link' })
    expect(await safe.getAttribute('rel')).toBe('noopener noreferrer nofollow')
    expect(await safe.getAttribute('target')).toBe('_blank')
    expect(await box.locator('script, iframe, img, [onerror], [onclick], [style]').count()).toBe(0)
    expect(await box.getByText('click me').getAttribute('href')).toBeNull()
    expect(await box.getByText('a script link').getAttribute('href')).toBeNull()
    expect(await box.getByRole('link', { name: '[image: remote image]' }).getAttribute('href')).toBe('https://example.com/tracker.png')
    await box.getByText('overlay').click()
    await box.getByText('click me').click()
    expect(await page.evaluate(() => window.__xss)).toBeUndefined()
    await page.getByText('scripts/run.sh').waitFor()
    await page.getByText('MIT').waitFor()
    // On a phone a table's one-word cells keep their words whole (the table scrolls, not the page).
    await page.setViewportSize({ width: 390, height: 800 })
    const cells = await box.locator('th, td').evaluateAll((els) =>
      els
        .filter((el) => !/\s/.test(el.textContent!.trim()))
        .map((el) => {
          const range = document.createRange()
          range.selectNodeContents(el)
          return { word: el.textContent!.trim(), lines: new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size }
        }),
    )
    expect(cells).toEqual(['Label', 'Meaning', 'BLOCKER', 'QUESTION'].map((word) => ({ word, lines: 1 })))
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
  }, 60_000)

  test('account: tier and today’s usage; change the password (still signed in), log out, log in with it; delete the account', async () => {
    const me = await user()
    expect((await api(`/search?q=email`)).status).toBe(200)
    const page = await visitor({ token: me.token })
    await page.goto(`${base}/account`)
    await heading(page, 'Account')
    await page.getByText(me.email).first().waitFor()
    expect(await page.locator('.facts').first().innerText()).toContain('Free')
    await page.getByText('Prompts opened: 0 of 10').waitFor()
    await page.getByText('Optimizations: 0 of 3').waitFor()

    await page.getByLabel('Current password').fill('a long enough passphrase')
    await page.getByLabel('New password').fill('an even longer passphrase now')
    await page.getByRole('button', { name: 'Change password' }).click()
    await page.getByText('Password changed.').waitFor()
    // The old token is over; the app holds a new one and stays signed in.
    expect((await api('/user/me', me.token)).status).toBe(401)
    await page.reload()
    await page.getByText('Prompts opened: 0 of 10').waitFor()

    await page.getByRole('button', { name: 'Log out' }).click()
    await heading(page, 'Prompt library')
    await page.goto(`${base}/login?next=/account`)
    await page.getByLabel('E-mail').fill(me.email)
    await page.getByLabel('Password').fill('a long enough passphrase')
    await page.getByRole('button', { name: 'Log in', exact: true }).click()
    await page.getByText('The e-mail or password is wrong', { exact: false }).or(page.getByRole('alert')).first().waitFor()
    await page.getByLabel('Password').fill('an even longer passphrase now')
    await page.getByRole('button', { name: 'Log in', exact: true }).click()
    await heading(page, 'Account')

    // The change goes through but the new login does not (the connection drops): said so, and signed out.
    await page.route('**/api/auth/login', (route) => route.abort())
    await page.getByLabel('Current password').fill('an even longer passphrase now')
    await page.getByLabel('New password').fill('the third passphrase of the day')
    await page.getByRole('button', { name: 'Change password' }).click()
    await page.getByText('Your password was changed. Log in again with the new one.').waitFor()
    await page.unroute('**/api/auth/login')
    await page.goto(`${base}/login?next=/account`)
    await page.getByLabel('E-mail').fill(me.email)
    await page.getByLabel('Password').fill('the third passphrase of the day')
    await page.getByRole('button', { name: 'Log in', exact: true }).click()
    await heading(page, 'Account')

    await page.getByRole('button', { name: 'Delete my account…' }).click()
    const remove = page.getByRole('button', { name: 'Delete permanently' })
    expect(await remove.isDisabled()).toBe(true)
    await page.getByLabel(/Type your e-mail/).fill(me.email)
    await remove.click()
    await heading(page, 'Prompt library')
    await page.getByRole('link', { name: 'Log in' }).waitFor()
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: me.email, password: 'an even longer passphrase now' }),
    })
    expect(login.status).toBe(401)
  }, 60_000)

  test('keyboard only: skip link, search, a result, the prompt page; focus always visible; the theme toggle', async () => {
    const page = await visitor()
    await page.goto(`${base}/`)
    await heading(page, 'Prompt library')
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content')
    const outline = () =>
      page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle + ' ' + getComputedStyle(document.activeElement!).outlineWidth)
    expect(await outline()).toMatch(/^solid [3-9]px$/)
    await page.keyboard.press('Enter')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main')

    await page.keyboard.press('Shift+Tab') // back into the header: the last control of the account navigation
    await page.getByRole('searchbox', { name: 'Search prompts' }).focus()
    await page.keyboard.type('debug', { delay: 30 })
    await page.locator('[data-results-for="debug"]').waitFor()
    // Tab from the search box to the first result's link, through the header and the filters.
    let found = false
    for (let i = 0; i < 30 && !found; i++) {
      await page.keyboard.press('Tab')
      found = await page.evaluate(() => !!document.activeElement?.closest('.prompt-card') && document.activeElement?.tagName === 'A')
    }
    expect(found).toBe(true)
    expect(await outline()).toMatch(/^solid [3-9]px$/)
    const title = await page.evaluate(() => document.activeElement!.textContent!)
    await page.keyboard.press('Enter')
    await heading(page, title)
    // The new page's heading has the focus, so a screen reader announces it.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1')

    const toggle = page.getByRole('button', { name: 'Dark theme' })
    await toggle.focus()
    const before = await page.evaluate(() => document.documentElement.dataset.theme)
    await page.keyboard.press('Space')
    await page.waitForFunction((theme) => document.documentElement.dataset.theme === theme, before === 'dark' ? 'light' : 'dark')
    expect(await toggle.getAttribute('aria-pressed')).toBe(before === 'dark' ? 'false' : 'true')
  }, 60_000)

  test('every page: no serious or critical axe violation, in both themes; screenshots at 1280 and 390 px', async () => {
    const pro = await user('pro')
    const free = await user()
    const prompt = await promptWithVariables(pro.token)
    const skills = await api<{ items: { id: string }[] }>('/skills?limit=1', pro.token)
    const skill = skills.body.items[0]!.id
    // One optimization, so the page shows a result and its diff.
    llm!.script = { tokens: ['## Role\n', 'You are precise.\n\n', 'Summarize the notes.'], tokenDelayMs: 0 }
    const pages: [string, string, 'pro' | 'free' | 'anonymous'][] = [
      ['home', '/', 'anonymous'],
      ['category', '/c/writing?sort=newest', 'anonymous'],
      ['search', '/search?q=email', 'anonymous'],
      ['login', '/login', 'anonymous'],
      ['register', '/register', 'anonymous'],
      ['callback-error', '/auth/callback#error=invalid_state', 'anonymous'],
      ['plans-anonymous', '/billing', 'anonymous'],
      ['not-found', '/no/such/page', 'anonymous'],
      ['prompt', `/p/${prompt.id}`, 'pro'],
      ['account', '/account', 'pro'],
      ['tokens', '/tokens', 'pro'],
      ['favorites', '/favorites', 'pro'],
      ['optimizer', '/optimizer', 'pro'],
      ['skills', '/skills', 'pro'],
      ['skill', `/skills/${skill}`, 'pro'],
      ['plans', '/billing?status=success', 'pro'],
      ['skills-upgrade', '/skills', 'free'],
      ['tokens-upgrade', '/tokens', 'free'],
      ['prompt-free', `/p/${prompt.id}`, 'free'],
    ]
    const failures: string[] = []
    // Light at both widths and dark at 1280 px, every page; dark at 390 px only for a few screenshots.
    const rounds = [
      { theme: 'light', width: 1280 },
      { theme: 'light', width: 390 },
      { theme: 'dark', width: 1280 },
      { theme: 'dark', width: 390, only: ['home', 'prompt', 'optimizer'] },
    ] as const
    for (const round of rounds) {
      const { theme, width } = round
      const tabs: Record<string, Page> = {}
      for (const who of ['pro', 'free', 'anonymous'] as const) {
        tabs[who] = await visitor({ width, bypassCSP: true, token: who === 'pro' ? pro.token : who === 'free' ? free.token : undefined })
        await tabs[who]!.context().addInitScript((t) => location.origin !== 'null' && localStorage.setItem('promptlib.theme', t), theme)
      }
      for (const [name, path, who] of pages) {
        if ('only' in round && !(round.only as readonly string[]).includes(name)) continue
        const page = tabs[who]!
        await page.goto(`${base}${path}`)
        await page.locator('h1').first().waitFor({ timeout: 15_000 })
        // Settled: nothing is still loading.
        await page.waitForFunction(() => !document.querySelector('.loading, [aria-busy="true"]'))
        if (name === 'optimizer') {
          await page.getByLabel('Your prompt').fill('Summarize the notes.')
          await page.getByRole('button', { name: 'Optimize', exact: true }).click()
          await page.locator('table.diff').first().waitFor()
        }
        expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme)
        for (const v of await axeScan(page)) {
          if (v.impact === 'serious' || v.impact === 'critical')
            failures.push(`${name} (${theme}, ${width}px): ${v.id} ${v.impact}: ${v.help} ${JSON.stringify(v.nodes.slice(0, 3))}`)
        }
        if (theme === 'light' || 'only' in round || ['home', 'prompt', 'optimizer'].includes(name))
          await screenshot(page, `${name}-${width}${theme === 'dark' ? '-dark' : ''}`)
        // Nothing is wider than the screen at 390 px (no sideways scrolling).
        if (width === 390)
          expect({ name, overflow: await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth) }).toEqual({
            name,
            overflow: false,
          })
      }
    }
    expect(failures).toEqual([])
  }, 240_000)

  test('no page broke a CSP rule, threw, or asked anything of another origin (the providers’ pages aside)', () => {
    for (const check of afterChecks) check()
    // The hostile skill's style attribute and event handlers are refused by the CSP while DOMPurify
    // parses them, before it drops them: Chromium reports even an inert DOMParser document (156.0.8078.108
    // reports handlers too; checked with a page that only parses them). The policy at work, not the
    // app breaking it: the skills test shows none of them reaches the page or runs.
    // And the two requests the checkout and account tests cut on purpose (a connection that drops).
    const expected = (p: string) =>
      p.includes('/skills/hostile-markdown: console: Applying inline style violates') ||
      p.includes('/skills/hostile-markdown: console: Executing inline event handler violates') ||
      /\/(billing\?status=cancelled|account): console: Failed to load resource: net::ERR_FAILED$/.test(p)
    expect(problems.filter((p) => !expected(p))).toEqual([])
    const providers = ['https://checkout.stripe.test/', 'https://www.paypal.test/', idp!.url]
    expect(foreign.filter((url) => !providers.some((p) => url.startsWith(p)))).toEqual([])
  })
})
