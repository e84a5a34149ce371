import { sqliteTable, text, integer, primaryKey } from 'drizzle-orm/sqlite-core'

/**
 * Daily counters, one row per subject (`user:<id>` or `ip:<address>`), metric and UTC day.
 * Kept in the database, not in memory, so they hold across restarts and instances.
 */
export const dailyUsage = sqliteTable(
  'daily_usage',
  {
    subject: text('subject').notNull(),
    metric: text('metric').notNull(),
    /** UTC day, YYYY-MM-DD */
    day: text('day').notNull(),
    count: integer('count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.subject, t.metric, t.day] })],
)

/** The distinct items behind a counter whose re-use is free (a prompt opened twice counts once). */
export const dailyUsageItems = sqliteTable(
  'daily_usage_items',
  {
    subject: text('subject').notNull(),
    metric: text('metric').notNull(),
    day: text('day').notNull(),
    item: text('item').notNull(),
  },
  (t) => [primaryKey({ columns: [t.subject, t.metric, t.day, t.item] })],
)

/** Fixed one-minute windows for request-rate limits (login and register per address). */
export const rateWindows = sqliteTable('rate_windows', {
  key: text('key').primaryKey(),
  windowStart: integer('window_start').notNull(),
  count: integer('count').notNull(),
})
