// Benchmark of catalogue data in and out (issue 16), on SQLite, each step a fresh `promptlib`
// process as an operator runs it:
//   1. import of N generated prompts (default 100,000): time and peak RSS (VmHWM);
//   2. export of them to JSON: time and peak RSS;
//   3. backup of a 1 GB database (more prompts are imported first) while 200 connections read
//      (wrk): read p99 before and during the backup.
// --million adds an import of 1,000,000 prompts in one run (same memory bound); --quick runs
// 20,000 prompts and a short load. The generator is bench-search's (scripts/bench/catalogue-data.ts),
// written to the file prompt by prompt.
import { spawn } from 'node:child_process'
import { createWriteStream, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { benchCategories, generatePrompts } from './bench/catalogue-data'
import { ensureWrk, freePort, pinned, ROOT, startProcess, tempDir, type WrkResult, wrk } from './bench/lib'

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    million: { type: 'boolean', default: false },
    prompts: { type: 'string' },
    connections: { type: 'string', default: '200' },
    binary: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
})
const count = Number(opts.prompts ?? (opts.quick ? 20_000 : 100_000))
const connections = Number(opts.connections)
const command = opts.binary ? [join(ROOT, opts.binary)] : [process.execPath, join(ROOT, 'src/main.ts')]
const TARGETS = { importS: 8, importRssMb: 300, exportS: 5, backupP99Ms: 50 }

/** Writes a catalogue of `n` generated prompts as JSON, one prompt at a time; returns its size. */
async function writeCatalogue(file: string, n: number, seed?: number): Promise<number> {
  const out = createWriteStream(file)
  const write = (text: string) => (out.write(text) ? Promise.resolve() : new Promise<void>((resolve) => out.once('drain', resolve)))
  await write(`{"format":"promptlib-catalogue","version":1,"categories":${JSON.stringify(benchCategories())},"prompts":[`)
  let i = 0
  let pending: string[] = []
  for (const prompt of generatePrompts(n, seed)) {
    pending.push(`${i++ ? ',' : ''}\n${JSON.stringify(prompt)}`)
    if (pending.length === 1000) {
      await write(pending.join(''))
      pending = []
    }
  }
  await write(`${pending.join('')}\n],"skills":[]}\n`)
  await new Promise<void>((resolve) => out.end(resolve))
  return statSync(file).size
}

/** Runs a promptlib command; its time and peak resident memory (VmHWM, read until it exits). */
async function run(args: string[], env: Record<string, string>): Promise<{ seconds: number; peakMb: number; stdout: string }> {
  const started = performance.now()
  const child = spawn(command[0]!, [...command.slice(1), ...args], { env: { ...process.env, ...env }, cwd: ROOT })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  let peakKb = 0
  const poll = setInterval(() => {
    try {
      const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0)
      peakKb = Math.max(peakKb, kb)
    } catch {}
  }, 20)
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  clearInterval(poll)
  if (code !== 0) throw new Error(`promptlib ${args.join(' ')} exited ${code}: ${stderr}`)
  return { seconds: (performance.now() - started) / 1000, peakMb: Math.round(peakKb / 1024), stdout }
}

const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED')
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`

async function importBench(n: number, label: string) {
  const dir = tempDir('promptlib-bench-data-')
  const env = { DATA_DIR: dir, DEMO_CATALOGUE: 'false', LOG_LEVEL: 'warn' }
  const file = join(dir, 'catalogue.json')
  console.log(`${label}: generating ${n.toLocaleString('en-US')} prompts…`)
  const size = await writeCatalogue(file, n)
  const imported = await run(['import', file], env)
  console.log(
    `${label}: import of ${n.toLocaleString('en-US')} prompts (${mb(size)} of JSON): ${imported.seconds.toFixed(1)} s` +
      `${n === 100_000 ? ` (target ≤ ${TARGETS.importS} s: ${verdict(imported.seconds <= TARGETS.importS)})` : ''}, ` +
      `peak RSS ${imported.peakMb} MB (target ≤ ${TARGETS.importRssMb}: ${verdict(imported.peakMb <= TARGETS.importRssMb)})`,
  )
  rmSync(file)
  return { dir, env }
}

ensureWrk()
const { dir, env } = await importBench(count, 'data')

// Export.
const exported = join(dir, 'export.json')
const exportRun = await run(['export', exported], env)
console.log(
  `data: export of ${count.toLocaleString('en-US')} prompts (${mb(statSync(exported).size)}): ${exportRun.seconds.toFixed(1)} s` +
    `${count === 100_000 ? ` (target ≤ ${TARGETS.exportS} s: ${verdict(exportRun.seconds <= TARGETS.exportS)})` : ''}, peak RSS ${exportRun.peakMb} MB`,
)
rmSync(exported)

// The backup target is for a database of 1 GB: the imported prompts (100,000 make about 480 MB)
// are joined by more, from another seed (other ids), until the file holds that much. --quick
// backs up what it imported.
const BACKUP_DATABASE_BYTES = 1e9
if (!opts.quick) {
  const size = statSync(join(dir, 'promptlib.db')).size
  if (size < BACKUP_DATABASE_BYTES) {
    const more = Math.ceil(((BACKUP_DATABASE_BYTES - size) / size) * count * 1.02)
    const file = join(dir, 'more.json')
    await writeCatalogue(file, more, 4242)
    const grown = await run(['import', file], env)
    rmSync(file)
    console.log(`data: ${more.toLocaleString('en-US')} more prompts imported for the backup (${grown.seconds.toFixed(1)} s)`)
  }
}

// Backup while 200 connections read: the same reads without and then during a backup.
const port = freePort()
const url = `http://127.0.0.1:${port}`
const dbSize = statSync(join(dir, 'promptlib.db')).size
const server = await startProcess(pinned(0, [...command, 'serve']), { ...env, PORT: String(port), HOST: '127.0.0.1' }, url)
try {
  const readUrl = `${url}/api/categories/writing/prompts?limit=20`
  const seconds = opts.quick ? 3 : 5
  wrk(readUrl, { seconds: 1, connections, cpu: 1 }) // warm-up
  const before = wrk(readUrl, { seconds, connections, cpu: 1 })
  const target = join(dir, 'backup.db')
  // wrk runs as long as the backup, and a little more; only the reads during it count.
  const backupStarted = performance.now()
  const backup = run(['backup', target], env)
  const during: WrkResult[] = []
  let done = false
  backup.finally(() => (done = true))
  while (!done) {
    during.push(wrk(readUrl, { seconds: 1, connections, cpu: 1 }))
    await Bun.sleep(20) // wrk blocks this process: let the backup's exit be heard
  }
  const b = await backup
  const worst = Math.max(...during.map((r) => r.p99ms))
  const errors = during.reduce((n, r) => n + r.errors, 0)
  console.log(
    `data: backup of a ${mb(dbSize)} database: ${b.seconds.toFixed(1)} s (${((performance.now() - backupStarted) / 1000).toFixed(1)} s with the load), ` +
      `${mb(statSync(target).size)} written; reads by ${connections} connections: p99 ${before.p99ms.toFixed(1)} ms before, ` +
      // the value comes last before its target: the report (scripts/benchmarks/report.ts) reads it there
      `the worst of ${during.length} seconds during it ${worst.toFixed(1)} ms (target ≤ ${TARGETS.backupP99Ms}: ${verdict(worst <= TARGETS.backupP99Ms)}), ` +
      `${Math.round(during.reduce((n, r) => n + r.rps, 0) / during.length)} req/s, ${errors} errors`,
  )
} finally {
  await server.stop()
}
if (!opts.keep) rmSync(dir, { recursive: true, force: true })

if (opts.million) {
  const big = await importBench(1_000_000, 'million')
  if (!opts.keep) rmSync(big.dir, { recursive: true, force: true })
}
