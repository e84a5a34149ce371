import { sql } from 'drizzle-orm'
import { bigint, customType, index, integer, pgTable, text } from 'drizzle-orm/pg-core'
import { timestampMs } from '../../db/postgres/columns'
import { users } from '../accounts/schema.pg'
import { OPTIMIZATION_STATUSES } from './store'

/**
 * Text kept as its UTF-8 bytes. A prompt may hold NUL (U+0000), which the API accepts and SQLite
 * stores, but PostgreSQL's `text` refuses; as `bytea` every prompt is kept exactly on both
 * engines. Read it in psql with `convert_from(prompt, 'UTF8')` (fails on a NUL, like any text).
 */
const utf8Bytes = customType<{ data: string; driverData: Buffer }>({
  dataType: () => 'bytea',
  toDriver: (value) => Buffer.from(value, 'utf8'),
  fromDriver: (value) => Buffer.from(value).toString('utf8'),
})

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
    prompt: utf8Bytes('prompt').notNull(),
    targetModel: text('target_model'),
    /** null until the run completes; a failed or aborted run keeps null */
    optimizedPrompt: utf8Bytes('optimized_prompt'),
    engine: text('engine').notNull(),
    model: text('model'),
    status: text('status', { enum: OPTIMIZATION_STATUSES }).notNull(),
    /** why a run failed (upstream_error, upstream_timeout, …), for operators; null otherwise */
    errorCode: text('error_code'),
    inputTokens: integer('input_tokens'),
    outputTokens: integer('output_tokens'),
    createdAt: timestampMs('created_at').notNull(),
    finishedAt: timestampMs('finished_at'),
    /** the server process streaming a `running` row (server_instances.id); null when none registered */
    instanceId: text('instance_id'),
    /** when the first text went out to the client: a run cut off before it is refunded */
    firstTextAt: timestampMs('first_text_at'),
  },
  (t) => [
    // the history page, newest first
    index('optimization_history_user_created_idx').on(t.userId, t.createdAt.desc(), t.seq.desc()),
    // the open-stream count (a small partial index: only running rows)
    index('optimization_history_running_idx').on(t.userId, t.createdAt).where(sql`${t.status} = 'running'`),
    // the sweep of rows whose server process died (also only running rows)
    index('optimization_history_running_instance_idx').on(t.instanceId).where(sql`${t.status} = 'running'`),
  ],
)

/**
 * The server processes sharing this database, each refreshing its heartbeat while it runs, so
 * that any of them can tell when another has died and end the streams it left `running`.
 * Heartbeats are written with the database's clock, so hosts with skewed clocks still agree.
 */
export const serverInstances = pgTable('server_instances', {
  id: text('id').primaryKey(),
  hostname: text('hostname').notNull(),
  pid: integer('pid').notNull(),
  /** the process's start time as the kernel reports it (Linux); tells a reused pid apart; null elsewhere */
  processStart: text('process_start'),
  startedAt: timestampMs('started_at').notNull(),
  heartbeatAt: timestampMs('heartbeat_at').notNull(),
})
