// The webhook storm (issue 18): signed deliveries of both payment providers' events for many users,
// 30 % of them repeats, shuffled, from 50 senders at once, into a real server; then the same events
// once each, in the order they happened, into a second fresh server. Passes when the two end in the
// same state (tiers, subscriptions, payments, the outbox, and what the API shows), no event was
// applied twice, and every outbox e-mail reached the loopback SMTP server exactly once.
//
//   bun scripts/storm.ts                  10,000 deliveries, 1,000 users, 50 senders
//   bun scripts/storm.ts --quick          1,000 deliveries, 100 users (CI)
//   options: --deliveries N --users N --concurrency N --seed N --binary dist/promptlib --timeout S
//            --engine postgres [--database-url ADMIN_URL]   (else a throwaway cluster, scripts/postgres.sh)
// Exits 1 with the failed checks.
import { parseArgs } from 'node:util'

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
  },
})
if (opts.engine !== 'sqlite' && opts.engine !== 'postgres') throw new Error('--engine is sqlite or postgres')
// The test support reads PROMPTLIB_TEST_POSTGRES when it loads: set (or cleared) before it does.
const { throwawayPostgres } = await import('./storm/pg')
if (opts.engine === 'postgres') process.env.PROMPTLIB_TEST_POSTGRES = opts['database-url'] ?? throwawayPostgres()
else delete process.env.PROMPTLIB_TEST_POSTGRES
const { runStorm } = await import('./storm/run')

await runStorm({
  deliveries: Number(opts.deliveries ?? (opts.quick ? 1000 : 10_000)),
  users: Number(opts.users ?? (opts.quick ? 100 : 1000)),
  duplicates: 0.3,
  concurrency: Number(opts.concurrency),
  seed: Number(opts.seed ?? Math.floor(Math.random() * 2 ** 31)),
  binary: opts.binary,
  engine: opts.engine,
  timeoutSeconds: Number(opts.timeout ?? (opts.quick ? 90 : 600)),
  kills: 0,
})
