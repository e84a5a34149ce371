// Search close to its limit (issue 18): GET /api/search throughput at 32 connections on the
// generated 100,000-prompt catalogue, against a bare Bun.serve in the same run that runs the same
// FTS5 statements for the same words and answers the same JSON (scripts/bench/search-baseline.ts):
// the limit is SQLite's own cost. Rounds alternate server and baseline (server and baseline pinned
// to CPU 0, wrk to CPU 1); the ratio is the median of the rounds' own ratios.
//
//   bun scripts/bench-search-limit.ts                 100,000 prompts, 3 rounds x 5 s (target ratio >= 0.5)
//   bun scripts/bench-search-limit.ts --quick         20,000 prompts, 1 round x 2 s (CI: reported)
//   options: --data-dir DIR (a catalogue imported before, e.g. bench-search.ts --keep) --prompts N
//            --rounds N --seconds N --connections N --queries N --binary dist/promptlib --json PATH
import { Database } from 'bun:sqlite'
import { spawnSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { DATABASE_FILE } from '../src/db/sqlite/client'
import { MAX_COMPLETIONS, SEARCH_SQL } from '../src/features/catalogue/search.sqlite'
import { ftsExpression } from '../src/lib/search/fts5'
import { searchTerms } from '../src/lib/search/terms'
import { generateCatalogue, generateQueries } from './bench/catalogue-data'
import { ensureWrk, freePort, median, pinned, ROOT, startProcess, tempDir, wrk } from './bench/lib'
import type { SearchPlan } from './bench/search-baseline'

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
    prompts: { type: 'string' },
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    connections: { type: 'string', default: '32' },
    queries: { type: 'string', default: '40' },
    binary: { type: 'string' },
    json: { type: 'string' },
  },
})
const rounds = Number(opts.rounds ?? (opts.quick ? 1 : 3))
const seconds = Number(opts.seconds ?? (opts.quick ? 2 : 5))
const connections = Number(opts.connections)
const TARGET = 0.5
ensureWrk()

const command = opts.binary ? [join(ROOT, opts.binary)] : [process.execPath, join(ROOT, 'src/main.ts')]
const dataDir = opts['data-dir'] ?? tempDir('promptlib-search-limit-')
const env = { DATA_DIR: dataDir, DEMO_CATALOGUE: 'false', JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123' }
if (!opts['data-dir']) {
  const count = Number(opts.prompts ?? (opts.quick ? 20_000 : 100_000))
  console.log(`importing ${count.toLocaleString('en-US')} generated prompts…`)
  const file = join(dataDir, 'generated-catalogue.json')
  writeFileSync(file, JSON.stringify(generateCatalogue(count)))
  const imported = spawnSync(command[0]!, [...command.slice(1), 'import', file], { env: { ...process.env, ...env }, encoding: 'utf8' })
  if (imported.status !== 0) throw new Error(`import failed: ${imported.stderr}`)
  rmSync(file)
}

const port = freePort()
const server = await startProcess(pinned(0, [...command, 'serve']), { ...env, PORT: String(port), HOST: '127.0.0.1' }, `http://127.0.0.1:${port}`)
let baseline: Awaited<ReturnType<typeof startProcess>> | null = null
try {
  // What the server answers for each query, and the FTS5 expression it builds for its words.
  const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true })
  const completions = db.prepare<{ word: string }, [string, string]>(SEARCH_SQL.completionsOf)
  const plans: Record<string, SearchPlan> = {}
  for (const q of generateQueries(Number(opts.queries))) {
    const terms = searchTerms(q)
    if (!terms) continue
    const last = terms.words[terms.words.length - 1]!
    // As the server: more completions than it takes, and the last word goes as a prefix.
    const found = terms.prefix ? completions.all(last, `${last}\u{10ffff}`).map((r) => r.word) : undefined
    const match = ftsExpression(terms, [], found && found.length <= MAX_COMPLETIONS ? found : undefined)
    const path = `/api/search?q=${encodeURIComponent(q)}`
    const res = await fetch(server.url + path)
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`)
    const headers = [...res.headers].filter(([k]) => k === 'content-type' || k === 'x-content-type-options') as [string, string][]
    plans[path] = { match, limit: 20, headers, body: await res.text() }
  }
  db.close()
  const planFile = join(tempDir('promptlib-search-plan-'), 'plan.json')
  writeFileSync(planFile, JSON.stringify(plans))
  const paths = Object.keys(plans)
  const script = join(tempDir('promptlib-search-wrk-'), 'paths.lua')
  writeFileSync(
    script,
    `local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}\nlocal i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format("GET", paths[i])\nend\n`,
  )

  const basePort = freePort()
  baseline = await startProcess(
    pinned(0, [process.execPath, join(ROOT, 'scripts/bench/search-baseline.ts'), String(basePort), join(dataDir, DATABASE_FILE), planFile]),
    {},
    `http://127.0.0.1:${basePort}`,
    paths[0]!,
  )
  // Warm both (JIT, page cache, prepared statements).
  wrk(server.url, { seconds: 1, connections, script })
  wrk(baseline.url, { seconds: 1, connections, script })

  const runs: { server: number; baseline: number; serverP99: number; baselineP99: number }[] = []
  for (let r = 0; r < rounds; r++) {
    const b = wrk(baseline.url, { seconds, connections, script })
    const s = wrk(server.url, { seconds, connections, script })
    if (s.errors > 0 || b.errors > 0) throw new Error(`errors: server ${s.errors}, baseline ${b.errors}`)
    runs.push({ server: s.rps, baseline: b.rps, serverP99: s.p99ms, baselineP99: b.p99ms })
    console.log(`  round ${r + 1}: server ${s.rps.toFixed(0)} req/s, baseline ${b.rps.toFixed(0)} req/s, ratio ${(s.rps / b.rps).toFixed(2)}`)
  }
  const ratio = median(runs.map((r) => r.server / r.baseline))
  console.log(
    `\nsearch at ${connections} connections, ${paths.length} queries in turn: server ${median(runs.map((r) => r.server)).toFixed(0)} req/s (p99 ${median(runs.map((r) => r.serverP99)).toFixed(1)} ms), bare FTS5 baseline ${median(runs.map((r) => r.baseline)).toFixed(0)} req/s (p99 ${median(runs.map((r) => r.baselineP99)).toFixed(1)} ms)`,
  )
  console.log(`search / baseline: ${ratio.toFixed(2)} (target >= ${TARGET})${ratio >= TARGET ? '  ok' : '  MISSED'}`)
  if (opts.json) writeFileSync(opts.json, JSON.stringify({ connections, queries: paths.length, rounds: runs, ratio, target: TARGET }, null, 2))
} finally {
  await baseline?.stop()
  await server.stop()
  if (!opts['data-dir']) rmSync(dataDir, { recursive: true, force: true })
}
