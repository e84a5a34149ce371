// SQLite adapter of the optimizer port. The statements of every optimize call are prepared once
// per connection (bench-optimizer.ts: the first delta within milliseconds); the cap's count and
// insert share one write transaction, which SQLite serialises across processes too.
import { isForeignKeyViolation } from '../../db/errors'
import { and, count, desc, eq, gt, isNotNull, isNull, lt, notInArray, or, sql } from 'drizzle-orm'
import { perConnection } from '../../db/sqlite/prepared'
import type { SqliteDb, SqliteStorage } from '../../db/storage'
import { optimizationHistory as history, serverInstances } from './schema.sqlite'
import { type CapResult, finishedOver, type OptimizerStore, type RunRecord, SERVER_DIED } from './store'

// Placeholders in WHERE take raw values (ms for timestamps); placeholders in VALUES/SET go
// through the column's mapping (Dates). drizzle maps SET placeholders at run time but does not type them.
const setTo = (name: string) => sql.placeholder(name) as never

const statements = perConnection((db: SqliteDb) => ({
  runningSince: db
    .select({ open: count() })
    .from(history)
    .where(and(eq(history.userId, sql.placeholder('userId')), eq(history.status, 'running'), gt(history.createdAt, sql.placeholder('since'))))
    .prepare(),
  insertRunning: db
    .insert(history)
    .values({
      id: sql.placeholder('id'),
      userId: sql.placeholder('userId'),
      mode: sql.placeholder('mode'),
      prompt: sql.placeholder('prompt'),
      targetModel: sql.placeholder('targetModel'),
      engine: sql.placeholder('engine'),
      model: sql.placeholder('model'),
      instanceId: sql.placeholder('instanceId'),
      status: 'running',
      createdAt: sql.placeholder('createdAt'),
    })
    .prepare(),
  statusOf: db
    .select({ status: history.status, errorCode: history.errorCode, firstTextAt: history.firstTextAt })
    .from(history)
    .where(eq(history.id, sql.placeholder('id')))
    .prepare(),
  finish: db
    .update(history)
    .set({
      status: setTo('status'),
      optimizedPrompt: setTo('optimizedPrompt'),
      errorCode: setTo('errorCode'),
      inputTokens: setTo('inputTokens'),
      outputTokens: setTo('outputTokens'),
      finishedAt: setTo('finishedAt'),
    })
    .where(eq(history.id, sql.placeholder('id')))
    .prepare(),
  markText: db
    .update(history)
    .set({ firstTextAt: setTo('at') })
    .where(and(eq(history.id, sql.placeholder('id')), isNull(history.firstTextAt), eq(history.status, 'running')))
    .prepare(),
}))

export function sqliteOptimizerStore(storage: SqliteStorage): OptimizerStore {
  return {
    insertRunningWithinCap: (run, cap, countSince, tx) =>
      storage
        .write((db): CapResult => {
          const s = statements(db)
          const open = s.runningSince.get({ userId: run.userId, since: countSince.getTime() })?.open ?? 0
          if (open >= cap) return { opened: false, open }
          s.insertRunning.run({ ...run })
          return { opened: true }
        }, tx)
        .catch((error: unknown): CapResult => {
          if (isForeignKeyViolation(error)) return { opened: false, gone: true }
          throw error
        }),

    async markTextSent(id, at) {
      await storage.write((db) => statements(db).markText.run({ id, at }))
    },

    finish: (id, outcome, tx) =>
      storage.write((db) => {
        const s = statements(db)
        const before = s.statusOf.get({ id })
        s.finish.run({ id, ...outcome })
        return finishedOver(before)
      }, tx),

    page: (userId, limit, offset) =>
      storage.read((db) => {
        const rows: RunRecord[] = db
          .select({
            id: history.id,
            mode: history.mode,
            prompt: history.prompt,
            optimizedPrompt: history.optimizedPrompt,
            engine: history.engine,
            model: history.model,
            status: history.status,
            createdAt: history.createdAt,
          })
          .from(history)
          .where(eq(history.userId, userId))
          // rowid breaks ties within a millisecond in insertion order (cuid2 ids are not ordered)
          .orderBy(desc(history.createdAt), desc(sql`${history}.rowid`))
          .limit(limit)
          .offset(offset)
          .all()
        const total = db.select({ total: count() }).from(history).where(eq(history.userId, userId)).get()?.total ?? 0
        return { rows, total }
      }),

    endRunsOfUnregistered: (now, tx) =>
      storage.write((db) => {
        const live = db.select({ id: serverInstances.id }).from(serverInstances)
        return db
          .update(history)
          .set({ status: 'aborted', errorCode: SERVER_DIED, finishedAt: now })
          .where(and(eq(history.status, 'running'), isNotNull(history.instanceId), notInArray(history.instanceId, live)))
          .returning({ userId: history.userId, createdAt: history.createdAt, firstTextAt: history.firstTextAt })
          .all()
          .map((row) => ({ userId: row.userId, createdAt: row.createdAt, textSent: row.firstTextAt !== null }))
      }, tx),

    endRunsCreatedBefore: (createdBefore, now) =>
      storage.write(
        (db) =>
          db
            .update(history)
            .set({ status: 'aborted', finishedAt: now })
            .where(and(eq(history.status, 'running'), lt(history.createdAt, createdBefore)))
            .returning({ id: history.id })
            .all().length,
      ),

    async beat(self, now = new Date()) {
      await storage.write((db) =>
        db
          .insert(serverInstances)
          .values({ ...self, startedAt: now, heartbeatAt: now })
          .onConflictDoUpdate({ target: serverInstances.id, set: { heartbeatAt: now } })
          .run(),
      )
    },

    // One host, one clock: the age is measured with this process's.
    instances: () =>
      storage.read((db) => {
        const now = Date.now()
        return db
          .select()
          .from(serverInstances)
          .all()
          .map(({ startedAt: _, ...row }) => ({ ...row, heartbeatAgeMs: now - row.heartbeatAt.getTime() }))
      }),

    async removeInstances(seen) {
      if (seen.length === 0) return
      await storage.write((db) =>
        db
          .delete(serverInstances)
          .where(or(...seen.map((s) => and(eq(serverInstances.id, s.id), eq(serverInstances.heartbeatAt, s.heartbeatAt)))))
          .run(),
      )
    },

    async unregister(id) {
      await storage.write((db) => db.delete(serverInstances).where(eq(serverInstances.id, id)).run())
    },
  }
}
