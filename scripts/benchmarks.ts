// docs/BENCHMARKS.md in one command (issue 18): builds the binary, runs every benchmark and proof
// script of the issues one after another on this machine, and writes what each printed against its
// targets (every line naming a target and ending ok/MISSED, or a run's pass/fail), the machine it
// ran on, and SVG charts of each measured figure against its target (docs/benchmarks/*.svg).
// Scripts with a same-run baseline (a bare Bun.serve answering the same bytes) report ratios.
//
//   bun scripts/benchmarks.ts            the full runs (about 25 minutes on 2 cores)
//   bun scripts/benchmarks.ts --quick    every script's short version (a few minutes)
//   options: --only NAME[,NAME]  --out PATH (default docs/BENCHMARKS.md)
import { Database } from 'bun:sqlite'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { parseArgs } from 'node:util'
import { ROOT } from './bench/lib'
import { briefOf, type Figure, parseFigures, svgChart } from './benchmarks/report'

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    out: { type: 'string', default: join(ROOT, 'docs', 'BENCHMARKS.md') },
  },
})

interface Bench {
  name: string
  issue: string
  what: string
  args: string[]
  /** minutes before it is stopped */
  limit: number
  postgres?: boolean
}

const BIN = ['--binary', 'dist/promptlib']
const quick = opts.quick ? ['--quick'] : []
const BENCHES: Bench[] = [
  {
    name: 'bench',
    issue: '2, 11',
    what: 'throughput against a bare Bun.serve; binary start-up and idle RSS',
    args: ['bench.ts', ...BIN, ...quick],
    limit: 6,
  },
  {
    name: 'bench-search',
    issue: '3, 16',
    what: 'import of 100,000 generated prompts; search latency, one client',
    args: ['bench-search.ts', ...BIN, ...(opts.quick ? ['--prompts', '20000', '--queries', '300'] : [])],
    limit: 6,
  },
  {
    name: 'bench-search-pg',
    issue: '12',
    what: 'the same import and search latency on PostgreSQL (one instance)',
    args: ['bench-search.ts', ...BIN, '--engine', 'postgres', ...(opts.quick ? ['--prompts', '20000', '--queries', '300'] : [])],
    limit: 6,
    postgres: true,
  },
  {
    name: 'bench-search-limit',
    issue: '18',
    what: 'search throughput against the same FTS5 statements in a bare Bun.serve',
    args: ['bench-search-limit.ts', ...BIN, ...quick],
    limit: 6,
  },
  {
    name: 'bench-optimizer',
    issue: '5',
    what: 'optimizer streams: first delta, relay overhead, 1,000 held streams',
    args: ['bench-optimizer.ts', ...BIN, ...quick],
    limit: 6,
  },
  {
    name: 'bench-payments',
    issue: '13',
    what: 'signed webhook deliveries per second; checkout overhead',
    args: ['bench-payments.ts', ...BIN, ...quick],
    limit: 6,
  },
  {
    name: 'bench-oauth',
    issue: '14',
    what: 'what the OAuth callback adds to the provider’s own time',
    args: ['bench-oauth.ts', ...BIN, ...quick],
    limit: 6,
  },
  {
    name: 'bench-web',
    issue: '17',
    what: 'the web app: size, time to interactive, search as you type',
    args: ['bench-web.ts', ...BIN, ...quick],
    limit: 8,
  },
  { name: 'bench-mcp', issue: '15', what: 'MCP tools/call latency and 200 concurrent clients', args: ['bench-mcp.ts', ...BIN, ...quick], limit: 6 },
  {
    name: 'bench-data',
    issue: '16',
    what: 'import (100,000 and 1,000,000 prompts), export and backup at size',
    args: ['bench-data.ts', ...BIN, ...(opts.quick ? ['--quick'] : ['--million'])],
    limit: 20,
  },
  { name: 'load', issue: '18', what: 'mixed traffic at 200 connections for 60 s', args: ['load.ts', ...BIN, ...quick], limit: 4 },
  { name: 'storm', issue: '18', what: '10,000 signed webhook deliveries against a serial replay', args: ['storm.ts', ...BIN, ...quick], limit: 4 },
  { name: 'crash', issue: '18', what: 'the storm with 20 SIGKILLs and restarts', args: ['crash.ts', ...BIN, ...quick], limit: 5 },
  { name: 'fuzz', issue: '18', what: '20,000 generated and hostile requests', args: ['fuzz.ts', ...BIN, ...quick], limit: 5 },
  { name: 'sigterm', issue: '18', what: 'SIGTERM under load', args: ['sigterm.ts', ...BIN, ...quick], limit: 3 },
  {
    name: 'bench-engines',
    issue: '12',
    what: 'the same requests on PostgreSQL and on SQLite',
    args: ['bench-engines.ts', ...quick],
    limit: 8,
    postgres: true,
  },
  {
    name: 'cluster-load',
    issue: '12',
    what: '3 instances on PostgreSQL behind nginx, exact counts',
    args: ['cluster-load.ts', ...quick],
    limit: 5,
    postgres: true,
  },
]

function run(bench: Bench): Promise<{ output: string; status: number | null; seconds: number }> {
  return new Promise((resolve) => {
    const started = performance.now()
    const child = spawn(process.execPath, [join('scripts', ...bench.args.slice(0, 1)), ...bench.args.slice(1)], { cwd: ROOT, env: process.env })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    const timer = setTimeout(() => {
      output += `\n(stopped after ${bench.limit} minutes)`
      child.kill('SIGTERM')
    }, bench.limit * 60_000)
    child.on('close', (status) => {
      clearTimeout(timer)
      resolve({ output, status, seconds: (performance.now() - started) / 1000 })
    })
  })
}

function machine(): string[] {
  const model = cpus()[0]?.model ?? 'unknown CPU'
  const kernel = spawnSync('uname', ['-sr'], { encoding: 'utf8' }).stdout.trim()
  const postgres = spawnSync('sh', ['-c', 'ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1'], { encoding: 'utf8' }).stdout.trim()
  return [
    `- CPU: ${cpus().length} × ${model}`,
    `- memory: ${(totalmem() / 2 ** 30).toFixed(1)} GiB; ${kernel}`,
    `- Bun ${Bun.version}; SQLite ${new Database(':memory:').query<{ v: string }, []>('select sqlite_version() v').get()!.v}${postgres ? `; PostgreSQL ${postgres}` : ''}`,
  ]
}

const build = spawnSync('bun', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' })
if (build.status !== 0) throw new Error(`build failed: ${build.stderr}`)

const selected = BENCHES.filter((b) => (!opts.only || opts.only.split(',').includes(b.name)) && existsSync(join(ROOT, 'scripts', b.args[0]!)))
const chartsDir = join(dirname(opts.out), 'benchmarks')
mkdirSync(chartsDir, { recursive: true })
const sections: string[] = []
const summary: string[] = []
const allFigures: (Figure & { bench: string })[] = []
for (const bench of selected) {
  console.log(`${bench.name}: ${bench.args.join(' ')}`)
  const { output, status, seconds } = await run(bench)
  const figures = parseFigures(output)
  for (const f of figures) allFigures.push({ ...f, bench: bench.name })
  const met = figures.filter((f) => f.ok).length
  const verdict = status === 0 ? 'passed' : `failed (exit ${status})`
  console.log(`  ${verdict} in ${seconds.toFixed(0)} s; ${met}/${figures.length} targets met`)
  summary.push(`| ${bench.name} | ${bench.issue} | ${bench.what} | ${verdict} | ${met} / ${figures.length} | ${seconds.toFixed(0)} s |`)
  let chart = ''
  if (figures.some((f) => f.measured !== null)) {
    writeFileSync(join(chartsDir, `${bench.name}.svg`), svgChart(bench.name, figures))
    chart = `\n![${bench.name}: measured against target](${relative(dirname(opts.out), join(chartsDir, `${bench.name}.svg`))})\n`
  }
  const cell = (text: string) => text.replaceAll('|', '\\|')
  const lines = figures.map((f) => `| ${cell(f.text)} | ${cell(briefOf(f))} | ${f.ok ? 'ok' : '**MISSED**'} |`)
  sections.push(
    [
      `## ${bench.name} (issue ${bench.issue})`,
      '',
      `${bench.what}. \`bun scripts/${bench.args.join(' ')}\`: ${verdict} in ${seconds.toFixed(0)} s.`,
      '',
      ...(lines.length > 0 ? ['| line printed | target | |', '|---|---|---|', ...lines] : ['(no target lines printed)']),
      chart,
      '<details><summary>output</summary>',
      '',
      '```',
      output.trim().split('\n').slice(-60).join('\n'),
      '```',
      '</details>',
      '',
    ].join('\n'),
  )
}

const missed = allFigures.filter((f) => !f.ok)
writeFileSync(
  opts.out,
  [
    '# Benchmarks',
    '',
    `Generated by \`bun scripts/benchmarks.ts${opts.quick ? ' --quick' : ''}\` (${opts.quick ? 'every script’s short version' : 'the full runs'}), one script after another on one machine; regenerate it rather than edit it. Every target of the issues is a line a script prints with its verdict; ratios are against a bare Bun.serve answering the same bytes in the same run (the scripts say how). The load generator shares the machine with the server, so figures on 2 cores are noisy: compare runs, not digits.`,
    '',
    '## Machine',
    '',
    ...machine(),
    '',
    '## Summary',
    '',
    `${allFigures.length - missed.length} of ${allFigures.length} targets and checks met${missed.length ? `; missed: ${missed.map((f) => `${f.bench}: ${briefOf(f)}`).join('; ')}` : ''}.`,
    '',
    '| script | issue | what | run | targets and checks met | time |',
    '|---|---|---|---|---|---|',
    ...summary,
    '',
    ...sections,
  ].join('\n'),
)
console.log(`wrote ${relative(ROOT, opts.out)}: ${allFigures.length - missed.length}/${allFigures.length} targets met`)
