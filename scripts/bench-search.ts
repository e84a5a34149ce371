// Search benchmark (issue 3): a generated catalogue of realistic, varied prompts (seeded, so
// every run is the same) is written as a catalogue JSON file and imported with the real
// `promptlib import` into a temporary data directory (timed); then the real server is started
// on it and sequential GET /api/search requests of varied realistic queries go over loopback
// HTTP from one client. Prints the import time and the search latency percentiles, then the
// floor under them measured in the same run: the same queries against a bare Bun.serve that runs
// the server's own search adapter (scripts/bench/search-adapter-baseline.ts).
//
//   bun scripts/bench-search.ts                    100,000 prompts, 2,000 queries, SQLite
//   options: --prompts N --queries N --seed N --binary dist/promptlib --keep
//   --engine postgres [--database-url ADMIN_URL]   on PostgreSQL: a throwaway database on that
//                                                  cluster, dropped after; without a URL a throwaway
//                                                  cluster of its own (scripts/postgres.sh)
import { spawnSync } from 'node:child_process'
import { rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import postgres from 'postgres'
import { generateCatalogue, generateQueries } from './bench/catalogue-data'
import { freePort, ROOT, startProcess, tempDir } from './bench/lib'
import type { AdapterPlan } from './bench/search-adapter-baseline'

const { values: opts } = parseArgs({
  options: {
    prompts: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '2000' },
    seed: { type: 'string', default: '42' },
    binary: { type: 'string' },
    keep: { type: 'boolean', default: false },
    engine: { type: 'string', default: 'sqlite' },
    'database-url': { type: 'string' },
  },
})
if (opts.engine !== 'sqlite' && opts.engine !== 'postgres') throw new Error('--engine sqlite|postgres')
const onPostgres = opts.engine === 'postgres'
let adminUrl = opts['database-url']
let stopCluster = () => {}
if (onPostgres && !adminUrl) {
  const clusterDir = tempDir('promptlib-bench-search-pg-')
  const started = spawnSync(join(ROOT, 'scripts/postgres.sh'), ['start', clusterDir, String(freePort())], { encoding: 'utf8' })
  if (started.status !== 0) throw new Error(`PostgreSQL did not start: ${started.stderr}`)
  adminUrl = started.stdout.trim()
  stopCluster = () => {
    spawnSync(join(ROOT, 'scripts/postgres.sh'), ['stop', clusterDir])
    rmSync(clusterDir, { recursive: true, force: true })
  }
}
const promptCount = Number(opts.prompts)
const queryCount = Number(opts.queries)
const command = opts.binary ? [join(ROOT, opts.binary)] : [process.execPath, join(ROOT, 'src/main.ts')]
const dataDir = tempDir('promptlib-bench-search-')
const env: Record<string, string> = {
  DATA_DIR: dataDir,
  DEMO_CATALOGUE: 'false',
  LOG_LEVEL: 'warn',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
}

// PostgreSQL: a database of its own on the given cluster, dropped at the end.
const admin = onPostgres ? postgres(adminUrl!, { max: 1, onnotice: () => {} }) : null
const database = `promptlib_bench_${process.pid}`
if (admin) {
  await admin.unsafe(`CREATE DATABASE "${database}"`)
  const url = new URL(adminUrl!)
  url.pathname = `/${database}`
  env.DATABASE_URL = url.toString()
}
const IMPORT_TARGET_S = onPostgres ? 30 : 15
console.log(`engine: ${opts.engine}`)

console.log(`generating ${promptCount.toLocaleString('en-US')} prompts (seed ${opts.seed})…`)
const file = join(dataDir, 'generated-catalogue.json')
const { chars, longest } = (() => {
  const catalogue = generateCatalogue(promptCount, Number(opts.seed))
  writeFileSync(file, JSON.stringify(catalogue))
  return {
    chars: catalogue.prompts.reduce((n, p) => n + p.content.length, 0),
    longest: catalogue.prompts.reduce((n, p) => Math.max(n, p.content.length), 0),
  }
})()
Bun.gc(true) // the generated objects are large; free them before the import runs beside this process
console.log(
  `  ${(statSync(file).size / 1e6).toFixed(0)} MB of JSON; content ${(chars / 1e6).toFixed(0)} M characters, mean ${Math.round(chars / promptCount)}, longest ${longest.toLocaleString('en-US')}`,
)

const t0 = performance.now()
const imported = spawnSync(command[0]!, [...command.slice(1), 'import', file], { env: { ...process.env, ...env }, encoding: 'utf8' })
const importSeconds = (performance.now() - t0) / 1000
if (imported.status !== 0) throw new Error(`import failed: ${imported.stderr}`)
console.log(
  `import (promptlib import, a fresh process, JSON parse included): ${importSeconds.toFixed(1)} s  (target <= ${IMPORT_TARGET_S} s)${importSeconds <= IMPORT_TARGET_S ? '  ok' : '  MISSED'}`,
)
console.log(
  imported.stdout
    .trim()
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n'),
)

const port = freePort()
const url = `http://127.0.0.1:${port}`
const server = await startProcess([...command, 'serve'], { ...env, PORT: String(port), HOST: '127.0.0.1' }, url)
try {
  const queries = generateQueries(queryCount)
  // Warm-up: JIT, page cache, prepared statements (a different seed, so nothing is pre-answered).
  for (const q of generateQueries(300, 99)) await (await fetch(`${url}/api/search?q=${encodeURIComponent(q)}`)).arrayBuffer()
  const times: number[] = []
  const totals: number[] = []
  const plans: Record<string, AdapterPlan> = {}
  const paths = queries.map((q) => `/api/search?q=${encodeURIComponent(q)}`)
  for (const [i, q] of queries.entries()) {
    const path = paths[i]!
    const started = performance.now()
    const res = await fetch(url + path)
    const text = await res.text()
    times.push(performance.now() - started)
    if (res.status !== 200) throw new Error(`search "${q}" answered ${res.status}`)
    totals.push((JSON.parse(text) as { total: number }).total)
    const headers = [...res.headers].filter(([k]) => k === 'content-type' || k === 'x-content-type-options') as [string, string][]
    plans[path] = { q, headers, body: text }
  }
  const pct = percentiles(times)
  const p50 = pct(50)
  const p99 = pct(99)
  const [p50Target, p99Target] = onPostgres ? [5, 20] : [2, 10]
  console.log(`\nsearch: ${queryCount} sequential queries over loopback HTTP, one client`)
  console.log(
    `  p50 ${p50.toFixed(2)} ms (target <= ${p50Target})${p50 <= p50Target ? '  ok' : '  MISSED'}   p90 ${pct(90).toFixed(2)} ms   p99 ${p99.toFixed(2)} ms (target <= ${p99Target})${p99 <= p99Target ? '  ok' : '  MISSED'}   max ${pct(100).toFixed(2)} ms`,
  )
  const empty = totals.filter((n) => n === 0).length
  const capped = totals.filter((n) => n >= 1000).length
  console.log(`  results: ${empty} queries found nothing, ${capped} matched 1,000 or more (ranked window full)`)
  const slow = queries
    .map((q, i) => [times[i]!, q] as const)
    .sort((a, b) => b[0] - a[0])
    .slice(0, 5)
  console.log(`  slowest: ${slow.map(([ms, q]) => `"${q}" ${ms.toFixed(1)} ms`).join(', ')}`)
  await server.stop()
  await adapterBaseline(plans, paths, p50)
} finally {
  await server.stop()
  if (!opts.keep) rmSync(dataDir, { recursive: true, force: true })
  else console.log(`kept ${dataDir}`)
  if (admin) {
    if (!opts.keep) await admin.unsafe(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)
    else console.log(`kept the database ${env.DATABASE_URL}`)
    await admin.end()
  }
  if (!opts.keep) stopCluster()
}

/** The p-th percentile of `times` (ms), for any p from 0 to 100 (100: the largest). */
function percentiles(times: number[]): (p: number) => number {
  const sorted = [...times].sort((a, b) => a - b)
  return (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

/**
 * The floor under those figures, in the same run: the same queries, one after another, against a
 * bare Bun.serve that runs the server's own search adapter for them (scripts/bench/
 * search-adapter-baseline.ts). The server was stopped first, so the two never share the cores.
 */
async function adapterBaseline(plans: Record<string, AdapterPlan>, paths: string[], serverP50: number) {
  const planFile = join(tempDir('promptlib-search-plan-'), 'plan.json')
  writeFileSync(planFile, JSON.stringify(plans))
  const basePort = freePort()
  const baseUrl = `http://127.0.0.1:${basePort}`
  const script = join(ROOT, 'scripts/bench/search-adapter-baseline.ts')
  const baseline = await startProcess([process.execPath, script, String(basePort), planFile], env, baseUrl, '/', 60_000)
  try {
    // No warm-up here: before it listened, the baseline ran every query once to check its answer.
    const times: number[] = []
    for (const path of paths) {
      const started = performance.now()
      await (await fetch(baseUrl + path)).arrayBuffer()
      times.push(performance.now() - started)
    }
    const pct = percentiles(times)
    console.log(
      `  floor: the same queries in a bare Bun.serve running the server's own search adapter: p50 ${pct(50).toFixed(2)} ms   p90 ${pct(90).toFixed(2)} ms   p99 ${pct(99).toFixed(2)} ms; the server's p50 is ${(serverP50 / pct(50)).toFixed(2)} × it`,
    )
  } finally {
    await baseline.stop()
    rmSync(dirname(planFile), { recursive: true, force: true })
  }
}
