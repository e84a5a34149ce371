// `bun run test:pg [bun test args…]`: the whole suite on PostgreSQL. Starts a throwaway cluster
// (scripts/postgres.sh) on a free loopback port, runs `bun test` with PROMPTLIB_TEST_POSTGRES
// pointing at it, stops the cluster, and exits with the tests' status.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dir, '..')
const script = join(root, 'scripts', 'postgres.sh')

function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = server.port!
  server.stop(true)
  return port
}

const dir = mkdtempSync(join(tmpdir(), 'promptlib-pg-'))
const started = spawnSync(script, ['start', dir, String(freePort())], { encoding: 'utf8' })
if (started.status !== 0) {
  console.error(`could not start PostgreSQL: ${started.stderr || started.stdout}`)
  process.exit(1)
}
const adminUrl = started.stdout.trim()
console.log(`PostgreSQL for the tests: ${adminUrl}`)
let status = 1
try {
  const run = spawnSync(process.execPath, ['test', ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, PROMPTLIB_TEST_POSTGRES: adminUrl },
  })
  status = run.status ?? 1
} finally {
  spawnSync(script, ['stop', dir])
  rmSync(dir, { recursive: true, force: true })
}
process.exit(status)
