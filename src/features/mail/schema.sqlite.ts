import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { users } from '../accounts/schema.sqlite'

/**
 * The transactional outbox: an e-mail is a row written in the same transaction as the change it
 * reports, and a worker delivers it afterwards. `dedupe_key` makes one event queue one message,
 * however often the event is processed.
 */
export const mailOutbox = sqliteTable(
  'mail_outbox',
  {
    id: text('id').primaryKey(),
    dedupeKey: text('dedupe_key').notNull().unique(),
    /** the account it was written for; the message goes with the account */
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    bodyText: text('body_text').notNull(),
    /** pending → sending (claimed, leased) → sent | pending again (retry) | failed (given up) */
    status: text('status', { enum: ['pending', 'sending', 'sent', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at', { mode: 'timestamp_ms' }).notNull(),
    /** while `sending`: the claim holds until then; a worker that died lets it lapse */
    leaseUntil: integer('lease_until', { mode: 'timestamp_ms' }),
    /** the claim's own token: only the worker holding it may settle the row */
    claimToken: text('claim_token'),
    lastError: text('last_error'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    sentAt: integer('sent_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('mail_outbox_due').on(t.status, t.nextAttemptAt), index('mail_outbox_user').on(t.userId)],
)
