// How commands open the database: WAL mode, the configured durability and lock wait, a bounded log.
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { enterBulkMode } from '../src/db/sqlite/bulk'
import { openDatabase } from '../src/db/sqlite/client'
import { openCommandStorage } from '../src/cli/context'
import { loadConfig } from '../src/config'
import { WAL_SIZE_LIMIT_BYTES } from '../src/db/sqlite/wal'
import type { SqliteStorage } from '../src/db/storage'
import { tempDir, TEST_ENGINE } from './support/app'

const pragma = (db: { $client: { query: (sql: string) => { get: () => unknown } } }, name: string) =>
  Object.values(db.$client.query(`PRAGMA ${name}`).get() as Record<string, unknown>)[0]

describe.skipIf(TEST_ENGINE !== 'sqlite')('openCommandStorage on SQLite', () => {
  test('defaults: WAL, synchronous NORMAL, a 30 s lock wait, the log size limit', async () => {
    const { storage, applied } = await openCommandStorage(loadConfig({ DATA_DIR: tempDir() }))
    const db = (storage as SqliteStorage).writer
    expect(applied.length).toBeGreaterThan(0)
    expect([pragma(db, 'journal_mode'), pragma(db, 'synchronous'), pragma(db, 'busy_timeout'), pragma(db, 'journal_size_limit')]).toEqual([
      'wal',
      1,
      30_000,
      WAL_SIZE_LIMIT_BYTES,
    ])
    await storage.close()
  })

  test('SQLITE_SYNCHRONOUS=full and SQLITE_LOCK_TIMEOUT_MS reach the connection', async () => {
    const { storage } = await openCommandStorage(loadConfig({ DATA_DIR: tempDir(), SQLITE_SYNCHRONOUS: 'full', SQLITE_LOCK_TIMEOUT_MS: '1234' }))
    const db = (storage as SqliteStorage).reader
    expect([pragma(db, 'synchronous'), pragma(db, 'busy_timeout')]).toEqual([2, 1234])
    await storage.close()
  })
})

describe.skipIf(TEST_ENGINE !== 'sqlite')('the import’s bulk mode', () => {
  test('writes with a rollback journal synced fully (NORMAL could be corrupted by a power cut), then returns to WAL and NORMAL', async () => {
    // bulk mode needs the database to itself: the import opens a single connection
    const { storage } = await openCommandStorage(loadConfig({ DATA_DIR: join(tempDir(), 'data') }), { singleConnection: true })
    const db = (storage as SqliteStorage).writer
    const bulk = enterBulkMode(db.$client, 1000)
    expect([pragma(db, 'journal_mode'), pragma(db, 'synchronous')]).toEqual(['delete', 2])
    bulk.leave()
    expect([pragma(db, 'journal_mode'), pragma(db, 'synchronous')]).toEqual(['wal', 1])
    await storage.close()
  })
})

describe.skipIf(TEST_ENGINE !== 'sqlite')('a connection’s prepared statements', () => {
  test('one statement per SQL text, kept; Drizzle’s queries reuse it, each call with its own values', () => {
    const db = openDatabase(join(tempDir(), 'statements.db'))
    db.$client.run('CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER)')
    db.$client.run("INSERT INTO kv VALUES ('a', 1), ('b', 2)")
    const sql = 'SELECT v FROM kv WHERE k = ?'
    expect(db.$client.prepare(sql)).toBe(db.$client.prepare(sql))
    expect(db.$client.prepare(sql)).not.toBe(db.$client.prepare(`${sql} `))
    const kv = sqliteTable('kv', { k: text('k').primaryKey(), v: integer('v') })
    const v = (k: string) => db.select({ v: kv.v }).from(kv).where(eq(kv.k, k)).get()?.v ?? null
    expect(['a', 'b', 'a', 'zz'].map(v)).toEqual([1, 2, 1, null])
    db.update(kv).set({ v: 5 }).where(eq(kv.k, 'a')).run()
    db.update(kv).set({ v: 6 }).where(eq(kv.k, 'b')).run()
    expect(['a', 'b'].map(v)).toEqual([5, 6])
    db.$client.close()
  })
})
