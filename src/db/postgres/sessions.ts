// Which sessions on the database are this process's. Each process names its connections uniquely
// (application_name), so that a step that would lock every other session out for minutes (an
// import into an empty catalogue dropping its indexes) can first make sure there is none.
import { hostname } from 'node:os'
import { sql } from 'drizzle-orm'
import type { PgDb, PgTx } from '../storage'

/** This process's application_name; PostgreSQL keeps 63 bytes of it (pg_stat_activity shows it). */
export const SESSION_NAME = `promptlib ${hostname()}:${process.pid}`.slice(0, 63)

/**
 * The application_name to send: this process's, unless the operator chose one (in the URL or
 * PGAPPNAME), which then applies, and makes aloneOnDatabase() answer false.
 */
export function sessionName(url: string, env: Record<string, string | undefined> = process.env): string | undefined {
  let named = Boolean(env.PGAPPNAME)
  try {
    named ||= new URL(url).searchParams.has('application_name')
  } catch {
    // postgres-js reports a URL it cannot parse
  }
  return named ? undefined : SESSION_NAME
}

/**
 * true when no other process has a session on this database (autovacuum aside: it gives way to a
 * lock it blocks). Sessions of other roles show only their database and name in
 * pg_stat_activity, so to a role without pg_read_all_stats every one counts, autovacuum's too:
 * false only ever means "be careful".
 */
export async function aloneOnDatabase(on: PgDb | PgTx): Promise<boolean> {
  const [row] = (await on.execute(sql`
    SELECT current_setting('application_name') = ${SESSION_NAME} AND NOT EXISTS (
      SELECT 1 FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type IS DISTINCT FROM 'autovacuum worker'
        AND application_name IS DISTINCT FROM current_setting('application_name')) AS alone`)) as unknown as { alone: boolean }[]
  return row?.alone === true
}
