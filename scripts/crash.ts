// The storm again while the server is killed (issue 18): scripts/storm.ts's deliveries, with
// SIGKILLs at random moments (each at a random number of acknowledged deliveries, a few ms later)
// and a restart on the same database after each; a delivery without an answer (or with a 5xx) is
// sent again with a doubling wait, as Stripe and PayPal retry. Passes when the final state equals
// the serial replay's, PRAGMA integrity_check says ok (SQLite), every e-mail reached the SMTP
// server at least once and at most once per event (a second copy only when a kill fell between
// the mail server's answer and the outbox's record, the window docs/payments.md describes), and
// every delivery acknowledged with a 2xx is in the database.
//
//   bun scripts/crash.ts                  10,000 deliveries, 1,000 users, 20 kills
//   bun scripts/crash.ts --quick          1,000 deliveries, 100 users, 4 kills (CI)
//   options: as scripts/storm.ts, and --kills N
import { parseArgs } from 'node:util'

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    deliveries: { type: 'string' },
    users: { type: 'string' },
    concurrency: { type: 'string', default: '50' },
    kills: { type: 'string' },
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
  timeoutSeconds: Number(opts.timeout ?? (opts.quick ? 90 : 900)),
  kills: Math.max(1, Number(opts.kills ?? (opts.quick ? 4 : 20))),
})
