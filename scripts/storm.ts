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
import { stormOptions } from './storm/options'

const { opts, quick, common } = await stormOptions()
const { runStorm } = await import('./storm/run')

await runStorm({ ...common, timeoutSeconds: Number(opts.timeout ?? (quick ? 90 : 600)), kills: 0 })
