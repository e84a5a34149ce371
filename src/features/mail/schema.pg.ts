// PostgreSQL tables of mail: the same columns as schema.sqlite.ts, in PostgreSQL's types.
import { index, integer, pgTable, text } from 'drizzle-orm/pg-core'
import { timestampMs as time } from '../../db/postgres/columns'
import { users } from '../accounts/schema.pg'

export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: text('id').primaryKey(),
    dedupeKey: text('dedupe_key').notNull().unique(),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    bodyText: text('body_text').notNull(),
    status: text('status', { enum: ['pending', 'sending', 'sent', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: time('next_attempt_at').notNull(),
    leaseUntil: time('lease_until'),
    claimToken: text('claim_token'),
    lastError: text('last_error'),
    createdAt: time('created_at').notNull(),
    sentAt: time('sent_at'),
  },
  (t) => [index('mail_outbox_due').on(t.status, t.nextAttemptAt), index('mail_outbox_user').on(t.userId)],
)
