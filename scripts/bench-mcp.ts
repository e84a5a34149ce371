// MCP benchmark (issue 15): the 100,000-prompt catalogue of bench-search.ts (the same seeded
// generator, imported with the real `promptlib import`), the real server, and the SDK's own
// Client over Streamable HTTP on loopback:
//   (a) one client, sequential `tools/call search_prompts` of typical queries: p50/p99, beside the
//       same kind of queries sent to GET /api/search in the same run (what MCP adds);
//   (b) many concurrent clients calling tools (search, get_prompt, list_categories,
//       list_favorites) for a while: errors, calls/s, latency, and the server's peak RSS (VmRSS).
// The server is pinned to CPU 0 and this process to CPU 1 (the machine has two cores).
//
//   bun scripts/bench-mcp.ts              100,000 prompts, 2,000 queries, 200 clients for 30 s
//   bun scripts/bench-mcp.ts --quick      20,000 prompts, 500 queries, 50 clients for 5 s
//   options: --prompts N --queries N --clients N --seconds N --binary dist/promptlib --keep
//            --engine postgres --database-url ADMIN_URL (a throwaway database on that cluster)
import { spawnSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import postgres from 'postgres'
import { generateCatalogue, generateQueries } from './bench/catalogue-data'
import { freePort, pinned, ROOT, startProcess, tempDir } from './bench/lib'

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    prompts: { type: 'string' },
    queries: { type: 'string' },
    clients: { type: 'string' },
    seconds: { type: 'string' },
    binary: { type: 'string' },
    keep: { type: 'boolean', default: false },
    engine: { type: 'string', default: 'sqlite' },
    'database-url': { type: 'string' },
  },
})
const quick = opts.quick
const promptCount = Number(opts.prompts ?? (quick ? 20_000 : 100_000))
const queryCount = Number(opts.queries ?? (quick ? 500 : 2000))
const clientCount = Number(opts.clients ?? (quick ? 50 : 200))
const seconds = Number(opts.seconds ?? (quick ? 5 : 30))
if (opts.engine !== 'sqlite' && opts.engine !== 'postgres') throw new Error('--engine sqlite|postgres')
const onPostgres = opts.engine === 'postgres'
if (onPostgres && !opts['database-url']) throw new Error('--engine postgres needs --database-url postgres://…/postgres (a throwaway cluster)')

const command = opts.binary ? [join(ROOT, opts.binary)] : [process.execPath, join(ROOT, 'src/main.ts')]
const dataDir = tempDir('promptlib-bench-mcp-')
const env: Record<string, string> = {
  DATA_DIR: dataDir,
  DEMO_CATALOGUE: 'false',
  LOG_LEVEL: 'warn',
  AUTH_RATE_LIMIT: '0',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
}
const admin = onPostgres ? postgres(opts['database-url']!, { max: 1, onnotice: () => {} }) : null
const database = `promptlib_bench_mcp_${process.pid}`
if (admin) {
  await admin.unsafe(`CREATE DATABASE "${database}"`)
  const url = new URL(opts['database-url']!)
  url.pathname = `/${database}`
  env.DATABASE_URL = url.toString()
}

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')
console.log(`engine ${opts.engine}; load average ${load()} (2 cores, shared)`)

// The catalogue, as bench-search.ts makes it.
console.log(`generating ${promptCount.toLocaleString('en-US')} prompts…`)
const file = join(dataDir, 'generated-catalogue.json')
const promptIds: string[] = (() => {
  const catalogue = generateCatalogue(promptCount, 42)
  writeFileSync(file, JSON.stringify(catalogue))
  return catalogue.prompts.slice(0, 2000).map((p) => p.id)
})()
Bun.gc(true)
const t0 = performance.now()
const imported = spawnSync(command[0]!, [...command.slice(1), 'import', file], { env: { ...process.env, ...env }, encoding: 'utf8' })
if (imported.status !== 0) throw new Error(`import failed: ${imported.stderr}`)
console.log(`imported in ${((performance.now() - t0) / 1000).toFixed(1)} s`)

const port = freePort()
const base = `http://127.0.0.1:${port}`
const server = await startProcess(pinned(0, [...command, 'serve']), { ...env, PORT: String(port), HOST: '127.0.0.1' }, base)
// This process (the clients) on the other CPU.
spawnSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' })

/** The server's resident memory now, in MB (VmRSS). */
function rss(): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
const summary = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b)
  return { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted.at(-1)! }
}
const ms = (n: number) => `${n.toFixed(2)} ms`

async function post(path: string, body: unknown, token?: string) {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`)
  return (await res.json()) as Record<string, unknown>
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'bench-mcp', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  )
  return client
}

const rssAtStart = rss()
try {
  // One pro user with a personal access token, as an MCP client is configured.
  const email = 'bench-mcp@example.com'
  const registered = await post('/api/auth/register', { email, password: 'a sufficiently long passphrase', name: 'Bench' })
  const tier = spawnSync(command[0]!, [...command.slice(1), 'user', 'set-tier', email, 'pro'], { env: { ...process.env, ...env }, encoding: 'utf8' })
  if (tier.status !== 0) throw new Error(`set-tier failed: ${tier.stderr}`)
  const pat = String((await post('/api/user/tokens', { name: 'bench' }, String(registered.access_token))).token)

  // (a) one client, sequential searches; then the same tools/call as a bare POST (the server's
  // share, without the SDK client's own parsing and checking) and the REST route. Each kind has
  // queries of its own from the same generator, and runs after the one before: a query asked again
  // right after another kind asked it finds its completions and pages cached (when all three took
  // the same query in turn, the comparisons looked 0.4 ms cheaper than MCP). MCP goes first, so
  // its figure is the coldest of the three.
  const client = await connect(pat)
  const queries = generateQueries(queryCount)
  for (const q of generateQueries(300, 99)) {
    await client.callTool({ name: 'search_prompts', arguments: { query: q } })
    await (await fetch(`${base}/api/search?q=${encodeURIComponent(q)}`)).arrayBuffer()
  }
  const mcpTimes: number[] = []
  const rawTimes: number[] = []
  const restTimes: number[] = []
  for (const q of queries) {
    const started = performance.now()
    const result = await client.callTool({ name: 'search_prompts', arguments: { query: q } })
    mcpTimes.push(performance.now() - started)
    if (result.isError) throw new Error(`search_prompts "${q}": ${JSON.stringify(result.content)}`)
  }
  const rawHeaders = { authorization: `Bearer ${pat}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' }
  for (const [i, q] of generateQueries(queryCount, 8).entries()) {
    const body = JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'search_prompts', arguments: { query: q } } })
    const started = performance.now()
    const raw = await fetch(`${base}/api/mcp`, { method: 'POST', headers: rawHeaders, body })
    await raw.arrayBuffer()
    rawTimes.push(performance.now() - started)
    if (raw.status !== 200) throw new Error(`bare tools/call answered ${raw.status}`)
  }
  for (const q of generateQueries(queryCount, 9)) {
    const started = performance.now()
    const res = await fetch(`${base}/api/search?q=${encodeURIComponent(q)}`)
    await res.arrayBuffer()
    restTimes.push(performance.now() - started)
  }
  await client.close()
  const mcp = summary(mcpTimes)
  const rest = summary(restTimes)
  const bare = summary(rawTimes)
  console.log(`\n(a) tools/call search_prompts, ${queryCount} sequential calls, one SDK client, loopback`)
  console.log(
    `  MCP   p50 ${ms(mcp.p50)} (target <= 3)${mcp.p50 <= 3 ? '  ok' : '  MISSED'}   p90 ${ms(mcp.p90)}   p99 ${ms(mcp.p99)} (target <= 10)${mcp.p99 <= 10 ? '  ok' : '  MISSED'}   max ${ms(mcp.max)}`,
  )
  console.log(`  bare  p50 ${ms(bare.p50)}   p90 ${ms(bare.p90)}   p99 ${ms(bare.p99)}   (the same tools/call as a plain POST: no SDK client)`)
  console.log(`  REST  p50 ${ms(rest.p50)}   p90 ${ms(rest.p90)}   p99 ${ms(rest.p99)}   (GET /api/search, queries of the same kind, same run)`)
  console.log(`  server RSS: ${rssAtStart.toFixed(0)} MB when started, ${rss().toFixed(0)} MB after (a)`)
  console.log(`  load average ${load()}`)

  // (b) many clients at once, each calling tools back to back.
  const clients: Client[] = []
  for (let i = 0; i < clientCount; i += 20) {
    clients.push(...(await Promise.all(Array.from({ length: Math.min(20, clientCount - i) }, () => connect(pat)))))
  }
  const loadQueries = generateQueries(5000, 11)
  let calls = 0
  let errors = 0
  const firstErrors: string[] = []
  const latencies: number[] = []
  const byTool: Record<string, number> = {}
  let peakRss = rss()
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rss())
  }, 250)
  const deadline = performance.now() + seconds * 1000
  let n = 0
  const nextCall = () => {
    const i = n++
    const r = i % 20
    if (r < 14) return { name: 'search_prompts', arguments: { query: loadQueries[i % loadQueries.length]!, limit: 10 } }
    if (r < 17) return { name: 'get_prompt', arguments: { id: promptIds[i % promptIds.length]!, arguments: { subject: 'load tests' } } }
    if (r < 19) return { name: 'list_categories', arguments: {} }
    return { name: 'list_favorites', arguments: {} }
  }
  const started = performance.now()
  await Promise.all(
    clients.map(async (c) => {
      while (performance.now() < deadline) {
        const call = nextCall()
        const t = performance.now()
        try {
          const result = await c.callTool(call)
          if (result.isError) throw new Error(JSON.stringify(result.content).slice(0, 200))
          latencies.push(performance.now() - t)
          byTool[call.name] = (byTool[call.name] ?? 0) + 1
        } catch (error) {
          errors++
          if (firstErrors.length < 5) firstErrors.push(`${call.name}: ${String(error).slice(0, 200)}`)
        }
        calls++
      }
    }),
  )
  const elapsed = (performance.now() - started) / 1000
  clearInterval(sampler)
  peakRss = Math.max(peakRss, rss())
  await Promise.all(clients.map((c) => c.close()))
  const under = summary(latencies)
  console.log(
    `\n(b) ${clientCount} concurrent SDK clients calling tools for ${seconds} s (70 % search_prompts, 15 % get_prompt, 10 % list_categories, 5 % list_favorites)`,
  )
  console.log(`  calls ${calls.toLocaleString('en-US')} (${(calls / elapsed).toFixed(0)}/s)   errors ${errors}${errors === 0 ? '  ok' : '  MISSED'}`)
  console.log(`  latency p50 ${ms(under.p50)}   p99 ${ms(under.p99)}   max ${ms(under.max)}`)
  console.log(`  server RSS peak ${peakRss.toFixed(0)} MB (target <= 200)${peakRss <= 200 ? '  ok' : '  MISSED'}`)
  console.log(
    `  per tool: ${Object.entries(byTool)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ')}`,
  )
  if (firstErrors.length > 0) console.log(`  first errors:\n    ${firstErrors.join('\n    ')}`)
  console.log(`  load average ${load()}`)
} finally {
  await server.stop()
  if (!opts.keep) rmSync(dataDir, { recursive: true, force: true })
  if (admin) {
    if (!opts.keep) await admin.unsafe(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)
    await admin.end()
  }
}
