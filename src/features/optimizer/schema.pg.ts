import { sql } from 'drizzle-orm'
import { bigint, index, integer, pgTable, text } from 'drizzle-orm/pg-core'
import { timestampMs } from '../../db/postgres/columns'
import { users } from '../accounts/schema.pg'
import { OPTIMIZATION_STATUSES } from './schema'

/**
 * One row per optimize call: written `running` when the stream starts and finished when it
 * ends. The `running` rows are also the per-user count of open streams (the cap holds across
 * instances). `seq` orders rows written in the same millisecond (SQLite uses its rowid).
 */
export const optimizationHistory = pgTable(
  'optimization_history',
  {
    id: text('id').primaryKey(),
    seq: bigint('seq', { mode: 'number' }).notNull().generatedByDefaultAsIdentity(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    mode: text('mode').notNull(),
    prompt: text('prompt').notNull(),
    targetModel: text('target_model'),
    optimizedPrompt: text('optimized_prompt'),
    engine: text('engine').notNull(),
    model: text('model'),
    status: text('status', { enum: OPTIMIZATION_STATUSES }).notNull(),
    errorCode: text('error_code'),
    inputTokens: integer('input_tokens'),
    outputTokens: integer('output_tokens'),
    createdAt: timestampMs('created_at').notNull(),
    finishedAt: timestampMs('finished_at'),
  },
  (t) => [
    index('optimization_history_user_created_idx').on(t.userId, t.createdAt.desc(), t.seq.desc()),
    index('optimization_history_running_idx').on(t.userId, t.createdAt).where(sql`${t.status} = 'running'`),
  ],
)
