// PostgreSQL adapter of the optimizer port. The open-stream cap takes a per-user advisory lock
// for the transaction before counting: READ COMMITTED alone would let two instances count the
// same running rows and both insert a fourth. Heartbeats use the database's clock, so instances
// on hosts whose clocks disagree still judge each other's age the same way.
import { isForeignKeyViolation } from '../../db/errors'
import { and, count, eq, gt, isNotNull, isNull, lt, notInArray, or, sql } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import { descending } from '../../db/postgres/columns'
import type { PgStorage } from '../../db/storage'
import { optimizationHistory as history, serverInstances } from './schema.pg'
import { type CapResult, finishedOver, type OptimizerStore, SERVER_DIED } from './store'

export function pgOptimizerStore(storage: PgStorage): OptimizerStore {
  const db = storage.db
  return {
    insertRunningWithinCap: (run, cap, countSince, tx) =>
      storage
        .transaction(async (t): Promise<CapResult> => {
          const conn = storage.use(t)
          await conn.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`optimizer:${run.userId}`}, 0))`)
          const [row] = await conn
            .select({ open: count() })
            .from(history)
            .where(and(eq(history.userId, run.userId), eq(history.status, 'running'), gt(history.createdAt, countSince)))
          const open = row?.open ?? 0
          if (open >= cap) return { opened: false, open }
          await conn.insert(history).values({ ...run, status: 'running' })
          return { opened: true }
        }, tx)
        .catch((error: unknown): CapResult => {
          if (isForeignKeyViolation(error)) return { opened: false, gone: true }
          throw error
        }),

    async markTextSent(id, at) {
      await db
        .update(history)
        .set({ firstTextAt: at })
        .where(and(eq(history.id, id), isNull(history.firstTextAt), eq(history.status, 'running')))
    },

    async finish(id, outcome, tx) {
      // One statement that also returns the status it replaced (the row locked by FOR UPDATE).
      const before = alias(history, 'before')
      const locked = storage
        .use(tx)
        .select({ id: before.id, status: before.status, errorCode: before.errorCode, firstTextAt: before.firstTextAt })
        .from(before)
        .where(eq(before.id, id))
        .for('update')
        .as('locked')
      const [row] = await storage
        .use(tx)
        .update(history)
        .set(outcome)
        .from(locked)
        .where(eq(history.id, locked.id))
        .returning({ status: locked.status, errorCode: locked.errorCode, firstTextAt: locked.firstTextAt })
      return finishedOver(row)
    },

    // The total beside each row (a window over every match, before LIMIT): one statement, one
    // snapshot. Two queries on two connections disagreed while calls ran (20 items, total 21).
    async page(userId, limit, offset) {
      const found = await db
        .select({
          id: history.id,
          mode: history.mode,
          prompt: history.prompt,
          optimizedPrompt: history.optimizedPrompt,
          engine: history.engine,
          model: history.model,
          status: history.status,
          createdAt: history.createdAt,
          total: sql<number>`count(*) OVER ()`.mapWith(Number),
        })
        .from(history)
        .where(eq(history.userId, userId))
        // seq breaks ties within a millisecond in insertion order (cuid2 ids are not ordered)
        .orderBy(descending(history.createdAt), descending(history.seq))
        .limit(limit)
        .offset(offset)
      const rows = found.map(({ total: _, ...row }) => row)
      if (found.length > 0 || offset === 0) return { rows, total: found[0]?.total ?? 0 }
      // Past the last entry: nothing to disagree with, counted on its own.
      const [counted] = await db.select({ total: count() }).from(history).where(eq(history.userId, userId))
      return { rows, total: counted?.total ?? 0 }
    },

    async endRunsOfUnregistered(now, tx) {
      const live = storage.use(tx).select({ id: serverInstances.id }).from(serverInstances)
      const rows = await storage
        .use(tx)
        .update(history)
        .set({ status: 'aborted', errorCode: SERVER_DIED, finishedAt: now })
        .where(and(eq(history.status, 'running'), isNotNull(history.instanceId), notInArray(history.instanceId, live)))
        .returning({ userId: history.userId, createdAt: history.createdAt, firstTextAt: history.firstTextAt })
      return rows.map((row) => ({ userId: row.userId, createdAt: row.createdAt, textSent: row.firstTextAt !== null }))
    },

    async endRunsCreatedBefore(createdBefore, now) {
      const rows = await db
        .update(history)
        .set({ status: 'aborted', finishedAt: now })
        .where(and(eq(history.status, 'running'), lt(history.createdAt, createdBefore)))
        .returning({ id: history.id })
      return rows.length
    },

    async beat(self, now) {
      const at = now ?? sql`now()`
      await db
        .insert(serverInstances)
        .values({ ...self, startedAt: at, heartbeatAt: at })
        .onConflictDoUpdate({ target: serverInstances.id, set: { heartbeatAt: at } })
    },

    async instances() {
      return db
        .select({
          id: serverInstances.id,
          hostname: serverInstances.hostname,
          pid: serverInstances.pid,
          processStart: serverInstances.processStart,
          heartbeatAt: serverInstances.heartbeatAt,
          heartbeatAgeMs: sql<number>`(extract(epoch from now() - ${serverInstances.heartbeatAt}) * 1000)::float8`,
        })
        .from(serverInstances)
    },

    async removeInstances(seen) {
      if (seen.length === 0) return
      await db
        .delete(serverInstances)
        .where(or(...seen.map((s) => and(eq(serverInstances.id, s.id), eq(serverInstances.heartbeatAt, s.heartbeatAt)))))
    },

    async unregister(id) {
      await db.delete(serverInstances).where(eq(serverInstances.id, id))
    },
  }
}
