// --engine postgres without --database-url: a throwaway cluster (scripts/postgres.sh), stopped at exit.
// Apart from the rest of the storm: it runs before the test support (which reads the URL) loads.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { ROOT, tempDir } from '../bench/lib'

export function throwawayPostgres(): string {
  const dir = tempDir('promptlib-storm-pg-')
  const port = 20000 + Math.floor(Math.random() * 20000)
  const started = spawnSync(join(ROOT, 'scripts/postgres.sh'), ['start', dir, String(port)], { encoding: 'utf8' })
  if (started.status !== 0) throw new Error(`PostgreSQL did not start: ${started.stderr}`)
  process.on('exit', () => void spawnSync(join(ROOT, 'scripts/postgres.sh'), ['stop', dir]))
  return started.stdout.trim()
}
