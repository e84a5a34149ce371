// The suite's own guard: every test file, not only the first one loaded, gets the 30 s timeout
// from test/support/cleanup.ts. Bun's default is 5 s, and a process test on a loaded CI machine
// can pass it; this test fails (times out) where the per-file timeout is missing.
import { expect, test } from 'bun:test'

test('a test may take longer than Bun’s default 5 s', async () => {
  const started = performance.now()
  await Bun.sleep(5_200)
  expect(performance.now() - started).toBeGreaterThan(5_000)
})
