// Three instances on one PostgreSQL behind nginx (test/support/cluster.ts), under mixed traffic
// (scripts/load/traffic.ts) from many connections; then every count the clients can vouch for is
// checked in the database: each free user's distinct prompts opened, each user's favorites and the
// prompts' favorite counts, each user's completed optimizations and their quota counters.
//
//   bun scripts/cluster-load.ts                 60 s, 200 connections, 3 instances (the target)
//   bun scripts/cluster-load.ts --quick         10 s, 50 connections (CI)
//   options: --seconds N --connections N --instances N --database-url ADMIN_URL (else a throwaway cluster)
// Exits 1 when any request got an answer the contract does not allow, or a count is off.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { ROOT, tempDir } from './bench/lib'

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    seconds: { type: 'string' },
    connections: { type: 'string' },
    instances: { type: 'string', default: '3' },
    'database-url': { type: 'string' },
  },
})
const seconds = Number(opts.seconds ?? (opts.quick ? 10 : 60))
const connections = Number(opts.connections ?? (opts.quick ? 50 : 200))

let stopPostgres = () => {}
if (!opts['database-url'] && !process.env.PROMPTLIB_TEST_POSTGRES) {
  const dir = tempDir('promptlib-cluster-pg-')
  const port = 20000 + Math.floor(Math.random() * 20000)
  const started = spawnSync(join(ROOT, 'scripts/postgres.sh'), ['start', dir, String(port)], { encoding: 'utf8' })
  if (started.status !== 0) throw new Error(`PostgreSQL did not start: ${started.stderr}`)
  process.env.PROMPTLIB_TEST_POSTGRES = started.stdout.trim()
  stopPostgres = () => void spawnSync(join(ROOT, 'scripts/postgres.sh'), ['stop', dir])
} else if (opts['database-url']) process.env.PROMPTLIB_TEST_POSTGRES = opts['database-url']

// The test support reads PROMPTLIB_TEST_POSTGRES when it loads: after it is set.
const { startCluster } = await import('../test/support/cluster')
const { freshDatabaseUrl } = await import('../test/support/postgres')
const { sqlRows, withStorage } = await import('../test/support/sql')
const { catalogueOf, exactCountMismatches, makeUsers, printResult, runTraffic } = await import('./load/traffic')

const databaseUrl = (await freshDatabaseUrl())!
const env = { DATABASE_URL: databaseUrl, JWT_SECRET: 'cluster-load-secret-cluster-load-secret-01' }
const cluster = await startCluster(env, Number(opts.instances))
let failed = false
try {
  const rss = () => cluster.instances.map((i) => i.rssMb())
  console.log(`cluster: ${cluster.instances.length} instances behind nginx at ${cluster.url}; ${connections} connections for ${seconds} s`)
  const users = await withStorage(env, (storage) =>
    makeUsers(cluster.url, 40, (id) => sqlRows(storage, "UPDATE users SET tier = 'pro' WHERE id = $1", [id]).then(() => {})),
  )
  const catalogue = await catalogueOf(cluster.url)
  const result = await runTraffic([cluster.url], users, catalogue, { connections, seconds })
  printResult(result)
  if (result.errors.length > 0) {
    failed = true
    // What the instances logged as errors: a 5xx's cause is in its instance's log.
    for (const [i, instance] of cluster.instances.entries())
      for (const line of instance
        .output()
        .split('\n')
        .filter((l) => l.includes('"level":"error"'))
        .slice(0, 5))
        console.log(`  instance ${i + 1}: ${line.slice(0, 2000)}`)
  }

  // Exact counts: what every instance wrote together against what the clients saw.
  const mismatches = await withStorage(env, (storage) => exactCountMismatches(storage, users))
  console.log(mismatches.length === 0 ? 'exact counts: every count matches what the clients saw' : `exact counts: ${mismatches.length} mismatches`)
  for (const m of mismatches.slice(0, 10)) console.log(`  ${m}`)
  if (mismatches.length > 0) failed = true
  console.log(`instance RSS (MB): ${rss().join(', ')}`)
} finally {
  await cluster.stop()
  stopPostgres()
}
process.exit(failed ? 1 : 0)
