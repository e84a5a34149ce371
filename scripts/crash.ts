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
import { stormOptions } from './storm/options'

const { opts, quick, common } = await stormOptions({ kills: { type: 'string' } })
const { runStorm } = await import('./storm/run')

await runStorm({
  ...common,
  timeoutSeconds: Number(opts.timeout ?? (quick ? 90 : 900)),
  kills: Math.max(1, Number((opts as { kills?: string }).kills ?? (quick ? 4 : 20))),
})
