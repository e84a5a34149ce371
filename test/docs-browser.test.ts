// The interactive docs page in a real browser: it renders from this server alone. Every request the
// page makes (scripts, the spec, fonts, the API client's test request) must go to the server's own
// origin; Scalar's cloud features (Ask AI, MCP, Share, Deploy, the hosted API client) are not offered.
//
// Runs Debian's Chromium through playwright-core (never a downloaded browser). Without
// /usr/bin/chromium (or CHROMIUM_PATH) the test is skipped with a printed reason; CI installs it.
// DOCS_BASE_URL points the test at an already running server (CI: the compiled binary) instead of
// the app started here.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'
import { makeTestApp } from './support/app'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const haveChromium = existsSync(CHROMIUM)
if (!haveChromium) console.log(`docs-browser: skipped, no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`)

/** What Scalar labels its cloud features; none may appear on the page. */
const CLOUD_LABELS = ['Ask AI', 'Ask AI Agent', 'Generate MCP', 'Connect MCP', 'Open API Client', 'Developer Tools', 'Configure', 'Share', 'Deploy']

let browser: Browser | undefined
let server: ReturnType<typeof Bun.serve> | undefined
let base = process.env.DOCS_BASE_URL?.replace(/\/$/, '') ?? ''

beforeAll(async () => {
  if (!haveChromium) return
  if (!base) {
    server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (await makeTestApp()).handle })
    base = `http://127.0.0.1:${server.port}`
  }
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] })
})

afterAll(async () => {
  await browser?.close()
  server?.stop(true)
})

test.skipIf(!haveChromium)(
  '/api/docs renders, offers no cloud feature, and requests nothing from another origin',
  async () => {
    const context = await browser!.newContext()
    const requested: string[] = []
    context.on('request', (request) => void requested.push(request.url()))
    const page = await context.newPage()
    page.on('websocket', (socket) => void requested.push(socket.url()))
    try {
      await page.goto(`${base}/api/docs`)
      await page.getByText('promptlib API').first().waitFor({ timeout: 20_000 })
      await page.getByText('Create an account').first().waitFor({ timeout: 20_000 })
      // Sections render lazily: scroll through the page so whatever loads late loads now.
      for (let i = 0; i < 10; i++) {
        await page.mouse.wheel(0, 4000)
        await page.waitForTimeout(150)
      }

      const lines = (await page.locator('body').innerText()).split('\n').map((line) => line.trim())
      for (const label of CLOUD_LABELS) expect(lines, `the page offers "${label}"`).not.toContain(label)

      // The API client stays: its test request goes straight to this server (no Scalar proxy).
      const health = await context.newPage()
      await health.goto(`${base}/api/docs#tag/operations/GET/api/health`)
      await health
        .getByRole('button', { name: /Test Request.*get \/api\/health/i })
        .first()
        .click({ timeout: 20_000 })
      await health.getByRole('button', { name: /^Send/ }).first().click()
      await health.getByText('200 OK').first().waitFor({ timeout: 10_000 })
      expect(requested).toContain(`${base}/api/health`)

      await page.waitForTimeout(500)
      const origin = new URL(base).origin
      const foreign = requested.filter((url) => !url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).origin !== origin)
      expect(foreign).toEqual([])
      expect(requested).toContain(`${base}/api/docs/scalar.js`)
      expect(requested).toContain(`${base}/api/openapi.json`)
    } finally {
      await context.close()
    }
  },
  60_000,
)
