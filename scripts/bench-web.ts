// Web app benchmark (issue 17), in Debian's Chromium on loopback against the real server (from
// source, or the binary with --binary) loaded with a generated catalogue (the search benchmark's
// seeded generator, imported with the real `promptlib import`):
//   (a) the first page's JavaScript and CSS, raw and gzipped (as served; target <= 80 KB gzipped);
//   (b) time to interactive of the first page: from navigation start until the app has drawn the
//       categories it fetched, its handlers attached (median of cold loads, each a fresh browser
//       context with an empty cache, and of warm reloads; target <= 300 ms);
//   (c) search as you type: queries typed key by key (100 ms apart) into the header's search box;
//       from the last keystroke's input event to the frame that shows that query's results
//       (target <= 100 ms).
//
//   bun scripts/bench-web.ts [--binary dist/promptlib] [--prompts 100000] [--loads 20] [--queries 60] [--quick]
import { spawnSync } from 'node:child_process'
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import { chromium } from 'playwright-core'
import { generateCatalogue, generateQueries } from './bench/catalogue-data'
import { freePort, ROOT, startProcess, tempDir } from './bench/lib'

// Browser globals, for the functions that run in the page; this program has no DOM types.
declare const window: any
declare const document: any
declare const MutationObserver: any
declare const requestAnimationFrame: any

const { values: opts } = parseArgs({
  options: {
    binary: { type: 'string' },
    prompts: { type: 'string' },
    loads: { type: 'string' },
    queries: { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
})
const promptCount = Number(opts.prompts ?? (opts.quick ? 10_000 : 100_000))
const loads = Number(opts.loads ?? (opts.quick ? 8 : 20))
const queryCount = Number(opts.queries ?? (opts.quick ? 15 : 60))
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium)`)

const command = opts.binary ? [join(ROOT, opts.binary)] : [process.execPath, join(ROOT, 'src/main.ts')]
const dataDir = tempDir('promptlib-bench-web-')
const env = { DATA_DIR: dataDir, DEMO_CATALOGUE: 'false', LOG_LEVEL: 'warn', JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123' }

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED')

console.log(`catalogue: ${promptCount.toLocaleString('en-US')} generated prompts, imported with promptlib import…`)
const file = join(dataDir, 'generated-catalogue.json')
writeFileSync(file, JSON.stringify(generateCatalogue(promptCount, 42)))
Bun.gc(true)
const imported = spawnSync(command[0]!, [...command.slice(1), 'import', file], { env: { ...process.env, ...env }, encoding: 'utf8' })
if (imported.status !== 0) throw new Error(`import failed: ${imported.stderr}`)
rmSync(file)

const port = freePort()
const url = `http://127.0.0.1:${port}`
const server = await startProcess([...command, 'serve'], { ...env, PORT: String(port), HOST: '127.0.0.1' }, url)
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] })
try {
  if (opts.binary) console.log(`binary: ${opts.binary}, ${(statSync(join(ROOT, opts.binary)).size / 1e6).toFixed(2)} MB`)

  // (a) what the first page downloads
  const html = await (await fetch(`${url}/`)).text()
  const assets = [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]!)
  let jsCss = 0
  console.log('\n(a) the first page’s files (raw / gzipped as served / gzip -9)')
  for (const path of assets) {
    const raw = new Uint8Array(await (await fetch(url + path, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer())
    const served = await fetch(url + path, { headers: { 'accept-encoding': 'gzip' }, decompress: false })
    const servedBytes = (await served.arrayBuffer()).byteLength
    if (/\.(js|css)$/.test(path)) jsCss += servedBytes
    console.log(
      `  ${path.padEnd(28)} ${kb(raw.byteLength).padStart(9)} ${kb(servedBytes).padStart(9)} ${kb(gzipSync(raw, { level: 9 }).byteLength).padStart(9)}`,
    )
  }
  console.log(`  JavaScript + CSS, gzipped: ${kb(jsCss)} (target <= 80 KB)  ${verdict(jsCss <= 80 * 1024)}`)

  // (b) time to interactive: the app marks the moment the home page's categories are drawn
  const markReady = () => {
    new MutationObserver((_: unknown, observer: { disconnect(): void }) => {
      if (document.querySelector('ul.categories li a')) {
        window.__ready = performance.now()
        observer.disconnect()
      }
    }).observe(document, { childList: true, subtree: true })
  }
  interface Timing {
    /** the app drew the categories */
    ready: number
    /** the page's HTML arrived */
    html: number
    /** the app's script arrived */
    script: number
    /** the app's code started (main.tsx marks it, after its imports ran) */
    start: number
    domContentLoaded: number
  }
  const measure = async (page: import('playwright-core').Page): Promise<Timing> => {
    await page.waitForFunction(() => window.__ready !== undefined, undefined, { timeout: 20_000 })
    return page.evaluate(() => {
      type Entry = { name: string; responseEnd: number; domContentLoadedEventEnd: number }
      const entries = (type: string) => (performance as unknown as { getEntriesByType(t: string): Entry[] }).getEntriesByType(type)
      const nav = entries('navigation')[0]!
      const script = entries('resource').find((r) => r.name.endsWith('.js'))
      return {
        ready: window.__ready as number,
        html: nav.responseEnd,
        script: script?.responseEnd ?? -1,
        start: performance.getEntriesByName('promptlib:start')[0]?.startTime ?? -1,
        domContentLoaded: nav.domContentLoadedEventEnd,
      }
    })
  }
  const cold: Timing[] = []
  const warm: number[] = []
  for (let i = 0; i < loads + 2; i++) {
    const context = await browser.newContext()
    await context.addInitScript(markReady)
    const page = await context.newPage()
    await page.goto(`${url}/`)
    const first = await measure(page)
    if (i >= 2) cold.push(first) // the first two warm the server and the browser process
    await page.reload()
    if (i >= 2) warm.push((await measure(page)).ready)
    await context.close()
  }
  const readyCold = median(cold.map((c) => c.ready))
  const m = (key: keyof Timing) => median(cold.map((c) => c[key])).toFixed(0)
  console.log(`\n(b) first page to interactive (categories drawn), ${loads} loads`)
  console.log(
    `  cold cache: p90 ${pct(
      cold.map((c) => c.ready),
      90,
    ).toFixed(0)} ms, median ${readyCold.toFixed(0)} ms  (target <= 300 ms)  ${verdict(readyCold <= 300)}`,
  )
  console.log(
    `    (medians: HTML ${m('html')} ms, script ${m('script')} ms, app started ${m('start')} ms, DOMContentLoaded ${m('domContentLoaded')} ms)`,
  )
  console.log(`  warm cache: median ${median(warm).toFixed(0)} ms, p90 ${pct(warm, 90).toFixed(0)} ms`)

  // (c) search as you type
  const page = await browser.newPage()
  await page.goto(`${url}/search`)
  await page.locator('#site-search').waitFor()
  await page.evaluate(() => {
    window.__lastInput = null
    window.__shown = {}
    document.getElementById('site-search').addEventListener('input', (e: { target: { value: string } }) => {
      window.__lastInput = { value: e.target.value, at: performance.now() }
    })
    new MutationObserver(() => {
      const results = document.querySelector('[data-results-for]')
      const last = window.__lastInput
      if (!results || !last || results.getAttribute('data-results-for') !== last.value || window.__shown[last.value]) return
      window.__shown[last.value] = -1
      // on screen: the frame after the results are in the document
      requestAnimationFrame(() => (window.__shown[last.value] = performance.now() - last.at))
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-results-for'] })
  })
  const latencies: number[] = []
  const slowest: [number, string][] = []
  const queries = generateQueries(queryCount + 3, 11).filter((q) => q.trim().length > 0)
  for (const [i, q] of queries.entries()) {
    await page.fill('#site-search', '')
    await page.locator('#site-search').pressSequentially(q, { delay: 100 })
    await page.waitForFunction((value) => window.__shown[value] > 0, q, { timeout: 10_000 })
    const latency = (await page.evaluate((value) => window.__shown[value], q)) as number
    if (i >= 3) latencies.push(latency)
    if (i >= 3) slowest.push([latency, q])
  }
  const p50 = pct(latencies, 50)
  const p90 = pct(latencies, 90)
  console.log(`\n(c) search as you type on ${promptCount.toLocaleString('en-US')} prompts, ${latencies.length} queries typed 100 ms per key`)
  console.log(
    `  last keystroke → results on screen: p50 ${p50.toFixed(0)} ms, p90 ${p90.toFixed(0)} ms, p99 ${pct(latencies, 99).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms  target <= 100 ms  ${verdict(p90 <= 100)}`,
  )
  const worst = slowest.sort((a, b) => b[0] - a[0]).slice(0, 3)
  console.log(`  slowest: ${worst.map(([ms, q]) => `"${q}" ${ms.toFixed(0)} ms`).join(', ')}`)
} finally {
  await browser.close()
  await server.stop()
  rmSync(dataDir, { recursive: true, force: true })
}
