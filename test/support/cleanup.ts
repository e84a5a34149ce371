// Preloaded by bun test (bunfig.toml): the temporary directories and PostgreSQL databases the
// tests made go when the run ends. (bun test does not emit process 'exit', so a global afterAll does it.)
import { afterAll, setDefaultTimeout } from 'bun:test'
import { rmSync } from 'node:fs'
import { dropTestDatabases } from './postgres'

export const createdTempDirs: string[] = []

// Imported outside the test runner too (scripts reuse the test helpers); there is no hook then.
try {
  // bunfig.toml's [test] timeout is not applied by Bun 1.4.5; tests start servers and hash
  // passwords on two loaded cores, and 5 s is tight for the process tests.
  setDefaultTimeout(30_000)
  afterAll(async () => {
    for (const dir of createdTempDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
    await dropTestDatabases()
  }, 300_000) // dropping a PostgreSQL pass's hundreds of databases takes a while
} catch {}
