// Preloaded by bun test (bunfig.toml): the temporary directories and PostgreSQL databases the
// tests made go when the run ends. (bun test does not emit process 'exit', so a global afterAll does it.)
import { afterAll } from 'bun:test'
import { rmSync } from 'node:fs'
import { dropTestDatabases } from './postgres'

export const createdTempDirs: string[] = []

// Imported outside the test runner too (scripts reuse the test helpers); there is no hook then.
try {
  afterAll(async () => {
    for (const dir of createdTempDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
    await dropTestDatabases()
  }, 300_000) // dropping a PostgreSQL pass's hundreds of databases takes a while
} catch {}
