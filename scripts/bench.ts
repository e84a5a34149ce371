// Throughput benchmark: the real server and, in the same run, a bare Bun.serve that answers
// the same bytes (scripts/bench/baseline.ts). Each scenario runs against both, alternately,
// with wrk on loopback; the server and baseline are pinned to CPU 0 and wrk to CPU 1.
// Prints req/s and p99 of each (medians over the rounds), and the ratios the issues set as
// targets: the median of the rounds' own server/baseline ratios, as each pair ran back to back
// (for a target against another scenario, of the two scenarios' server/server ratios).
//
//   bun scripts/bench.ts                 full run (3 rounds x 5 s per scenario and side)
//   bun scripts/bench.ts --quick         CI-sized run (1 round x 2 s), targets reported only
//   bun scripts/bench.ts --binary dist/promptlib   benchmark the compiled binary (+ start-up, RSS)
//   options: --rounds N --seconds N --connections N --only NAME[,NAME] --check (exit 1 on a missed target)
//            --log-level warn (the server without its access log, to see what the log costs)
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { ensureWrk, freePort, median, pinned, ROOT, rssMb, startProcess, tempDir, wrk } from './bench/lib'
import { SCENARIOS, type BenchContext } from './bench/scenarios'

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    binary: { type: 'string' },
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    connections: { type: 'string', default: '50' },
    only: { type: 'string' },
    check: { type: 'boolean', default: false },
    'log-level': { type: 'string', default: 'info' },
  },
})
const rounds = Number(opts.rounds ?? (opts.quick ? 1 : 3))
const seconds = Number(opts.seconds ?? (opts.quick ? 2 : 5))
const connections = Number(opts.connections)

ensureWrk()

const serverCommand = opts.binary ? [join(ROOT, opts.binary), 'serve'] : [process.execPath, join(ROOT, 'src/main.ts'), 'serve']
const dataDir = tempDir('promptlib-bench-')
const port = freePort()
const serverEnv = {
  PORT: String(port),
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  AUTH_RATE_LIMIT: '0',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
  LOG_LEVEL: opts['log-level'],
}
const server = await startProcess(pinned(0, serverCommand), serverEnv, `http://127.0.0.1:${port}`)
const cli = (args: string[]) => {
  const r = spawnSync(serverCommand[0]!, [...serverCommand.slice(1, -1), ...args], { env: { ...process.env, ...serverEnv }, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`cli ${args.join(' ')} failed: ${r.stderr}`)
  return r.stdout
}

const ctx: BenchContext = { url: server.url, cli, tokens: {} }
const selected = SCENARIOS.filter((s) => !opts.only || opts.only.split(',').includes(s.name))
for (const s of selected) await s.setup?.(ctx)

// Record what the server answers, so the baseline can answer exactly the same bytes.
const recordings: Record<string, { status: number; headers: [string, string][]; body: string }> = {}
for (const s of selected) {
  const r = await fetch(server.url + s.path, { headers: s.headers?.(ctx) })
  const body = await r.text()
  if (r.status !== 200) throw new Error(`${s.name}: the server answered ${r.status}: ${body.slice(0, 200)}`)
  const headers = [...r.headers].filter(([k]) => k !== 'date' && k !== 'content-length')
  recordings[`GET ${s.path}`] = { status: r.status, headers, body }
}
const recordingsFile = join(dataDir, 'recordings.json')
writeFileSync(recordingsFile, JSON.stringify(recordings))
const baselinePort = freePort()
const baseline = await startProcess(
  pinned(0, [process.execPath, join(ROOT, 'scripts/bench/baseline.ts'), String(baselinePort), recordingsFile]),
  {},
  `http://127.0.0.1:${baselinePort}`,
  '/',
)

interface Row {
  name: string
  baseline: { rps: number; p99: number }
  server: { rps: number; p99: number }
  /** median of each round's server/baseline ratio: the host's drift cancels within a pair */
  pairedRatio: number
  /** each round's ratio, to show the spread */
  roundRatios: number[]
  /** against another scenario: each round's server/server ratio, the two runs back to back */
  againstRatios?: number[]
  errors: number
}
const rows: Row[] = []
console.log(`\nbench: ${rounds} round(s) x ${seconds}s per side, ${connections} connections, server: ${opts.binary ?? 'bun src/main.ts'}\n`)
for (const s of selected) {
  const run = (url: string, secs = seconds) => wrk(url + s.path, { seconds: secs, connections, headers: s.headers?.(ctx) })
  run(baseline.url, 1)
  run(server.url, 1) // warm-up: JIT and caches
  // A target against another scenario (PAT /me against JWT /me) compares the two on the server,
  // each round's pair back to back: as a ratio of two ratios to the baseline, four runs' noise
  // moved it by ±0.1 (0.88 in one report, 1.04 in a rerun the same evening).
  const other = s.target?.against ? selected.find((x) => x.name === s.target!.against) : undefined
  const runOther = (url: string) => wrk(url + other!.path, { seconds, connections, headers: other!.headers?.(ctx) })
  const b: ReturnType<typeof run>[] = []
  const v: ReturnType<typeof run>[] = []
  const w: ReturnType<typeof run>[] = []
  for (let i = 0; i < rounds; i++) {
    b.push(run(baseline.url))
    v.push(run(server.url))
    if (other) w.push(runOther(server.url))
  }
  rows.push({
    name: s.name,
    baseline: { rps: median(b.map((x) => x.rps)), p99: median(b.map((x) => x.p99ms)) },
    server: { rps: median(v.map((x) => x.rps)), p99: median(v.map((x) => x.p99ms)) },
    pairedRatio: median(v.map((x, i) => x.rps / b[i]!.rps)),
    roundRatios: v.map((x, i) => x.rps / b[i]!.rps),
    againstRatios: other ? v.map((x, i) => x.rps / w[i]!.rps) : undefined,
    errors: v.reduce((a, x) => a + x.errors, 0) + w.reduce((a, x) => a + x.errors, 0),
  })
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
console.log('scenario            baseline req/s  p99 ms   server req/s  p99 ms   ratio   target')
let missed = 0
for (const row of rows) {
  const s = selected.find((x) => x.name === row.name)!
  // against another scenario: the median of the rounds' server/server ratios (NaN when that one was not run)
  const ratio = s.target?.against ? (row.againstRatios ? median(row.againstRatios) : NaN) : row.pairedRatio
  const target = s.target ? `>= ${s.target.ratio} x ${s.target.against ?? 'baseline'}` : ''
  const ok = !s.target || ratio >= s.target.ratio
  if (!ok) missed++
  console.log(
    `${row.name.padEnd(18)}  ${fmt(row.baseline.rps).padStart(14)}  ${row.baseline.p99.toFixed(2).padStart(6)}  ${fmt(row.server.rps).padStart(13)}  ${row.server.p99
      .toFixed(2)
      .padStart(
        6,
      )}  ${ratio.toFixed(2).padStart(6)}   ${target}${s.target ? (ok ? '  ok' : '  MISSED') : ''}${row.errors ? `  (${row.errors} errors)` : ''}`,
  )
}
console.log('\nserver/baseline per round (ratio above = their median):')
for (const row of rows) console.log(`  ${row.name.padEnd(18)}${row.roundRatios.map((r) => r.toFixed(2)).join(' ')}`)
for (const row of rows.filter((r) => r.againstRatios)) {
  const s = selected.find((x) => x.name === row.name)!
  console.log(
    `  ${`${row.name}/${s.target!.against}`.padEnd(18)}${row.againstRatios!.map((r) => r.toFixed(2)).join(' ')}   (server/server, back to back: the ratio above)`,
  )
}

await baseline.stop()
await server.stop()

if (opts.binary) {
  // Start-up: from exec to the first 200 on /api/health, on an empty data directory and on a
  // restart; then the idle resident set size.
  const starts: { first: number; restart: number; rss: number }[] = []
  for (let i = 0; i < (opts.quick ? 2 : 5); i++) {
    const dir = tempDir('promptlib-start-')
    const p = freePort()
    const env = { ...serverEnv, PORT: String(p), DATA_DIR: dir }
    const time = async () => {
      const t0 = performance.now()
      const started = await startProcess([join(ROOT, opts.binary!), 'serve'], env, `http://127.0.0.1:${p}`, '/api/health')
      const ms = performance.now() - t0
      return { started, ms }
    }
    const first = await time()
    await first.started.stop()
    const again = await time()
    await Bun.sleep(1000)
    const rss = rssMb(again.started.child.pid!)
    await again.started.stop()
    starts.push({ first: first.ms, restart: again.ms, rss })
  }
  const startFirst = median(starts.map((s) => s.first))
  const startAgain = median(starts.map((s) => s.restart))
  const rss = median(starts.map((s) => s.rss))
  console.log(
    `\nbinary start-up to first 200 on an empty data dir: ${startFirst.toFixed(0)} ms (target <= 150 ms)${startFirst <= 150 ? '  ok' : '  MISSED'}; on restart ${startAgain.toFixed(0)} ms`,
  )
  console.log(`binary idle RSS: ${rss} MB (target <= 80 MB)${rss <= 80 ? '  ok' : '  MISSED'}`)
  if (startFirst > 150) missed++
  if (rss > 80) missed++
}

if (opts.check && missed > 0) {
  console.log(`\n${missed} target(s) missed`)
  process.exit(1)
}
