// Preloaded by bun test (bunfig.toml): the temporary directories and PostgreSQL databases the
// tests made go when the run ends. (bun test does not emit process 'exit', so a global afterAll does it.)
import { plugin } from 'bun'
import { afterAll, setDefaultTimeout } from 'bun:test'
import { rmSync } from 'node:fs'
import { dropTestDatabases } from './postgres'

export const createdTempDirs: string[] = []

const TEST_TIMEOUT_MS = 30_000

// Tests start servers and hash passwords on two loaded cores; Bun's default 5 s per test is tight
// for the process tests. Bun 1.4.5 applies neither bunfig.toml's [test] timeout nor a preload's
// setDefaultTimeout beyond the first test file (setDefaultTimeout is per file), so every test
// file gets the call prepended as it loads. Same first line: stack traces keep their line numbers.
plugin({
  name: 'per-file test timeout',
  setup(build) {
    build.onLoad({ filter: /\/test\/[^/]+\.test\.ts$/ }, async ({ path }) => ({
      contents: `import { setDefaultTimeout as __timeout } from 'bun:test'; __timeout(${TEST_TIMEOUT_MS});${await Bun.file(path).text()}`,
      loader: 'ts',
    }))
  },
})

// Imported outside the test runner too (scripts reuse the test helpers); there is no hook then.
try {
  setDefaultTimeout(TEST_TIMEOUT_MS)
  afterAll(async () => {
    for (const dir of createdTempDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
    await dropTestDatabases()
  }, 300_000) // dropping a PostgreSQL pass's hundreds of databases takes a while
} catch {}
