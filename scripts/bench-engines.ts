// The same requests on both engines in one run: a server on SQLite and a server on PostgreSQL
// (a throwaway cluster, or --database-url ADMIN_URL), each pinned to CPU 0 in turn with wrk on
// CPU 1, alternating rounds. Prints req/s and p99 of each and PostgreSQL's ratio to SQLite
// (issue 12's target: /api/user/me on PostgreSQL ≥ 0.5 × the same request on SQLite).
//
//   bun scripts/bench-engines.ts [--quick] [--rounds N] [--seconds N] [--database-url ADMIN_URL]
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import postgres from 'postgres'
import { ensureWrk, freePort, median, pinned, ROOT, startProcess, tempDir, wrk } from './bench/lib'

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    connections: { type: 'string', default: '50' },
    'database-url': { type: 'string' },
  },
})
const rounds = Number(opts.rounds ?? (opts.quick ? 1 : 3))
const seconds = Number(opts.seconds ?? (opts.quick ? 2 : 5))
const connections = Number(opts.connections)
ensureWrk()

let adminUrl = opts['database-url']
let stopCluster = () => {}
if (!adminUrl) {
  const dir = tempDir('promptlib-bench-pg-')
  const started = spawnSync(join(ROOT, 'scripts/postgres.sh'), ['start', dir, String(freePort())], { encoding: 'utf8' })
  if (started.status !== 0) throw new Error(`PostgreSQL did not start: ${started.stderr}`)
  adminUrl = started.stdout.trim()
  stopCluster = () => void spawnSync(join(ROOT, 'scripts/postgres.sh'), ['stop', dir])
}
const database = `plib_bench_engines_${process.pid}`
const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
await admin.unsafe(`CREATE DATABASE "${database}"`)
const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${database}` }).toString()

const SECRET = 'bench-secret-bench-secret-bench-secret-0123'
async function start(engine: 'sqlite' | 'postgres') {
  const port = freePort()
  const env: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: tempDir('promptlib-bench-'),
    AUTH_RATE_LIMIT: '0',
    JWT_SECRET: SECRET,
  }
  if (engine === 'postgres') env.DATABASE_URL = databaseUrl
  const server = await startProcess(pinned(0, [process.execPath, join(ROOT, 'src/main.ts'), 'serve']), env, `http://127.0.0.1:${port}`)
  const post = (path: string, body: unknown, token?: string) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    })
  const registered = (await (
    await post('/api/auth/register', { email: 'bench@example.com', password: 'bench-password-1234', name: 'Bench' })
  ).json()) as {
    access_token: string
  }
  const set = spawnSync(process.execPath, [join(ROOT, 'src/main.ts'), 'user', 'set-tier', 'bench@example.com', 'pro'], {
    env: { ...process.env, ...env },
  })
  if (set.status !== 0) throw new Error(`set-tier failed: ${set.stderr}`)
  const pat = ((await (await post('/api/user/tokens', { name: 'bench' }, registered.access_token)).json()) as { token: string }).token
  return { engine, server, jwt: registered.access_token, pat }
}

const servers = [await start('sqlite'), await start('postgres')]
const scenarios = [
  { name: 'me-jwt', path: '/api/user/me', auth: (s: (typeof servers)[number]) => s.jwt },
  { name: 'me-pat', path: '/api/user/me', auth: (s: (typeof servers)[number]) => s.pat },
  { name: 'categories', path: '/api/categories', auth: () => null },
  { name: 'search', path: '/api/search?q=email%20writ', auth: () => null },
]
console.log(`\nbench-engines: ${rounds} round(s) x ${seconds}s per engine, ${connections} connections\n`)
console.log('scenario        sqlite req/s  p99 ms   postgres req/s  p99 ms   postgres/sqlite')
const results: Record<string, number> = {}
try {
  for (const s of scenarios) {
    const run = (x: (typeof servers)[number], secs = seconds) => {
      const token = s.auth(x)
      return wrk(x.server.url + s.path, { seconds: secs, connections, headers: token ? { authorization: `Bearer ${token}` } : undefined })
    }
    for (const x of servers) run(x, 1) // warm-up
    const byEngine: ReturnType<typeof run>[][] = [[], []]
    for (let i = 0; i < rounds; i++) servers.forEach((x, k) => byEngine[k]!.push(run(x)))
    const [lite, pg] = byEngine.map((runs) => ({
      rps: median(runs.map((r) => r.rps)),
      p99: median(runs.map((r) => r.p99ms)),
      errors: runs.reduce((n, r) => n + r.errors, 0),
    }))
    const ratio = median(byEngine[1]!.map((r, i) => r.rps / byEngine[0]![i]!.rps))
    results[s.name] = ratio
    const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
    const target = s.name.startsWith('me-') ? (ratio >= 0.5 ? '   (target >= 0.5: ok)' : '   (target >= 0.5: MISSED)') : ''
    console.log(
      `${s.name.padEnd(14)} ${fmt(lite!.rps).padStart(13)} ${lite!.p99.toFixed(2).padStart(7)} ${fmt(pg!.rps).padStart(16)} ${pg!.p99.toFixed(2).padStart(7)}   ${ratio.toFixed(2)}${target}${lite!.errors + pg!.errors ? `  (${lite!.errors + pg!.errors} errors)` : ''}`,
    )
  }
} finally {
  for (const x of servers) await x.server.stop()
  await admin.unsafe(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)
  await admin.end()
  stopCluster()
}
