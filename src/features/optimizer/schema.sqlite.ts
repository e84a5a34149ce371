import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { users } from '../accounts/schema.sqlite'
import { OPTIMIZATION_STATUSES } from './store'

/**
 * One row per optimize call: written `running` when the stream starts and finished when it
 * ends. The `running` rows are also the per-user count of open streams, kept here rather than
 * in memory so the cap holds across instances.
 */
export const optimizationHistory = sqliteTable(
  'optimization_history',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    mode: text('mode').notNull(),
    prompt: text('prompt').notNull(),
    targetModel: text('target_model'),
    /** null until the run completes; a failed or aborted run keeps null */
    optimizedPrompt: text('optimized_prompt'),
    engine: text('engine').notNull(),
    model: text('model'),
    status: text('status', { enum: OPTIMIZATION_STATUSES }).notNull(),
    /** why a run failed (upstream_error, upstream_timeout, …), for operators; null otherwise */
    errorCode: text('error_code'),
    inputTokens: integer('input_tokens'),
    outputTokens: integer('output_tokens'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    finishedAt: integer('finished_at', { mode: 'timestamp_ms' }),
    /** the server process streaming a `running` row (server_instances.id); null when none registered */
    instanceId: text('instance_id'),
    /** when the first text went out to the client: a run cut off before it is refunded */
    firstTextAt: integer('first_text_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    // the history page, newest first
    index('optimization_history_user_created_idx').on(t.userId, t.createdAt),
    // the open-stream count (a small partial index: only running rows)
    index('optimization_history_running_idx').on(t.userId, t.createdAt).where(sql`${t.status} = 'running'`),
    // the sweep of rows whose server process died (also only running rows)
    index('optimization_history_running_instance_idx').on(t.instanceId).where(sql`${t.status} = 'running'`),
  ],
)

/**
 * The server processes sharing this database, each refreshing its heartbeat while it runs, so
 * that any of them can tell when another has died and end the streams it left `running`.
 * Kept with the optimizer, the only feature that needs it so far.
 */
export const serverInstances = sqliteTable('server_instances', {
  id: text('id').primaryKey(),
  hostname: text('hostname').notNull(),
  pid: integer('pid').notNull(),
  /** the process's start time as the kernel reports it (Linux); tells a reused pid apart; null elsewhere */
  processStart: text('process_start'),
  startedAt: integer('started_at', { mode: 'timestamp_ms' }).notNull(),
  heartbeatAt: integer('heartbeat_at', { mode: 'timestamp_ms' }).notNull(),
})
