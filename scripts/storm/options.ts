// The command line storm.ts and crash.ts share: the run's size, the server, the engine. On
// PostgreSQL, PROMPTLIB_TEST_POSTGRES is set before the test support (which reads it) is loaded.
import { parseArgs } from 'node:util'

export async function stormOptions(extra: Record<string, { type: 'string' }> = {}) {
  const { values: opts } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      deliveries: { type: 'string' },
      users: { type: 'string' },
      concurrency: { type: 'string', default: '50' },
      seed: { type: 'string' },
      binary: { type: 'string' },
      engine: { type: 'string', default: 'sqlite' },
      'database-url': { type: 'string' },
      timeout: { type: 'string' },
      ...extra,
    },
  })
  if (opts.engine !== 'sqlite' && opts.engine !== 'postgres') throw new Error('--engine is sqlite or postgres')
  const { throwawayPostgres } = await import('./pg')
  if (opts.engine === 'postgres') process.env.PROMPTLIB_TEST_POSTGRES = (opts['database-url'] as string | undefined) ?? throwawayPostgres()
  else delete process.env.PROMPTLIB_TEST_POSTGRES
  const quick = opts.quick === true
  return {
    opts,
    quick,
    common: {
      deliveries: Number(opts.deliveries ?? (quick ? 1000 : 10_000)),
      users: Number(opts.users ?? (quick ? 100 : 1000)),
      duplicates: 0.3,
      concurrency: Number(opts.concurrency),
      seed: Number(opts.seed ?? Math.floor(Math.random() * 2 ** 31)),
      binary: opts.binary as string | undefined,
      engine: opts.engine as 'sqlite' | 'postgres',
    },
  }
}
