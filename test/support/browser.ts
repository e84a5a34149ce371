// Debian's Chromium driven by playwright-core (never a downloaded browser), and what the web app's
// browser tests check on every page: errors, CSP violations, requests to other origins, an axe-core
// scan, screenshots kept as CI artifacts.
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import type { TestApp } from './app'
import { ROOT } from './process'

// Browser globals, for the functions that run in the page (page.evaluate); this program has no DOM types.
declare const window: any
declare const document: any

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const haveChromium = existsSync(CHROMIUM)

/** Where screenshots go; CI keeps this folder (gitignored). */
export const SCREENSHOTS = process.env.SCREENSHOTS_DIR ?? join(ROOT, 'artifacts', 'screenshots')

/**
 * Signs a tab in once, as after a login: a reload keeps what the app stored since (a new token,
 * or none after logging out). (about:blank, where every page starts, has no storage.)
 */
export async function signInOnce(context: BrowserContext, token: string): Promise<void> {
  await context.addInitScript((token: string) => {
    // Runs in the page: its globals, not this file's.
    const page = globalThis as unknown as { location: { origin: string }; sessionStorage: Storage; localStorage: Storage }
    if (page.location.origin === 'null' || page.sessionStorage.getItem('signed-in-by-test')) return
    page.sessionStorage.setItem('signed-in-by-test', '1')
    page.localStorage.setItem('promptlib.token', token)
  }, token)
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] })
}

/**
 * Serves a test app on loopback and starts Chromium. The app is bundled on its first visit, made
 * here: not inside the first test's time.
 */
export async function serveToChromium(t: Pick<TestApp, 'handle'>) {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request, s) => t.handle(request, s) })
  const base = `http://127.0.0.1:${server.port}`
  const browser = await launchChromium()
  await fetch(`${base}/`)
  return { server, base, browser }
}

/** Everything a page does that it should not: script errors, console errors (CSP refusals print there), requests elsewhere. */
export function watch(context: BrowserContext, origin: string) {
  const problems: string[] = []
  const foreign: string[] = []
  context.on('request', (request) => {
    const url = request.url()
    if (!url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).origin !== origin) foreign.push(url)
  })
  const attach = (page: Page) => {
    page.on('pageerror', (error) => void problems.push(`${page.url()}: ${error.message}`))
    page.on('console', (message) => {
      // A 4xx the app asked for on purpose (a refused login, a 404 prompt) is printed by Chromium as a console error too.
      if (message.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) {
        problems.push(`${page.url()}: console: ${message.text()}`)
      }
    })
  }
  context.on('page', attach)
  for (const page of context.pages()) attach(page)
  return { problems, foreign }
}

const AXE = join(ROOT, 'node_modules', 'axe-core', 'axe.min.js')

export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: unknown[] }[]
}

/**
 * axe-core's scan of the page as it is (WCAG 2.x A and AA plus best practices). The page's CSP
 * forbids injected scripts, so the context that runs it must be made with `bypassCSP: true`.
 */
export async function axeScan(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE })
  return page.evaluate(async () => {
    // biome-ignore lint: axe is injected above, untyped
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] })
    // biome-ignore lint: axe's result, untyped
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n: any) => ({ target: n.target })) }))
  })
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true })
}
