// Signed webhook deliveries (Stripe's and PayPal's) in the load run's mix: the storm's events
// (scripts/storm/events.ts) for a few users of their own, with its repeats, shuffled, sent one per
// request as the mix draws them; once all are sent, the list starts again (every delivery then a
// repeat). The users are apart from the other traffic's, so tiers they gain change no other count.
// Afterwards: every event sent was applied exactly once and recorded once.
import type { Storage } from '../../src/db/storage'
import { sqlNumber } from '../../test/support/sql'
import { makeStorm } from '../storm/events'
import { type Answer, deliver, firstOutcome, presignWallet, seedUsers, type World } from '../storm/harness'
import type { Action } from './traffic'

export interface WebhookTraffic {
  action: Action
  /** the failed checks: an event applied twice or never, a count of recorded events off */
  check(storage: Storage): Promise<string[]>
  summary(): string
}

/** Seeds the users (before the server starts: straight into its fresh database) and makes their events. */
export async function webhookTraffic(
  store: Record<string, string>,
  world: World,
  users: number,
  deliveries: number,
  seed: number,
): Promise<WebhookTraffic> {
  const run = Date.now().toString(36)
  const userIds = Array.from({ length: users }, (_, i) => `load${run}u${i}`)
  await seedUsers(store, userIds)
  const storm = makeStorm(userIds, deliveries, 0.3, seed, run)
  presignWallet(storm.events, world)
  const answers = new Map<string, Answer[]>()
  let next = 0
  return {
    action: {
      kind: 'webhook',
      weight: 4,
      async run(base) {
        const { event } = storm.deliveries[next++ % storm.deliveries.length]!
        const answer = await deliver(base, event, world)
        const key = `${event.provider} ${event.id}`
        answers.set(key, [...(answers.get(key) ?? []), answer])
        return { status: answer.status, ok: answer.status === 200, detail: answer.error }
      },
    },
    async check(storage) {
      const failures: string[] = []
      let twice = 0
      let never = 0
      for (const [key, list] of answers) {
        const firsts = list.filter((a) => a.status === 200 && firstOutcome(a.outcome)).length
        if (firsts > 1) twice++
        if (firsts === 0 && list.every((a) => a.status === 200)) never++
        if ((firsts > 1 || firsts === 0) && failures.length < 5) failures.push(`${key}: applied ${firsts} times in ${list.length} deliveries`)
      }
      if (twice) failures.unshift(`${twice} events applied more than once`)
      if (never) failures.unshift(`${never} events never applied`)
      const recorded = await sqlNumber(storage, 'SELECT count(*) FROM webhook_events')
      if (recorded !== answers.size) failures.push(`${recorded} events recorded, ${answers.size} distinct events sent`)
      return failures
    },
    summary: () =>
      `${Math.min(next, storm.deliveries.length)} of ${storm.deliveries.length} deliveries sent${next > storm.deliveries.length ? ` (then ${next - storm.deliveries.length} more repeats)` : ''}, ${answers.size} distinct events, ${users} users`,
  }
}
