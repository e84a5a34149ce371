// How commands open the database: WAL mode, the configured durability and lock wait, a bounded log.
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { enterBulkMode } from '../src/cli/import'
import { openCommandDatabase } from '../src/cli/context'
import { loadConfig } from '../src/config'
import { WAL_SIZE_LIMIT_BYTES } from '../src/db/wal'
import { tempDir } from './support/app'

const pragma = (db: { $client: { query: (sql: string) => { get: () => unknown } } }, name: string) =>
  Object.values(db.$client.query(`PRAGMA ${name}`).get() as Record<string, unknown>)[0]

describe('openCommandDatabase', () => {
  test('defaults: WAL, synchronous NORMAL, a 30 s lock wait, the log size limit', () => {
    const { db, applied } = openCommandDatabase(loadConfig({ DATA_DIR: tempDir() }))
    expect(applied.length).toBeGreaterThan(0)
    expect([pragma(db, 'journal_mode'), pragma(db, 'synchronous'), pragma(db, 'busy_timeout'), pragma(db, 'journal_size_limit')]).toEqual([
      'wal',
      1,
      30_000,
      WAL_SIZE_LIMIT_BYTES,
    ])
    db.$client.close()
  })

  test('SQLITE_SYNCHRONOUS=full and SQLITE_LOCK_TIMEOUT_MS reach the connection', () => {
    const { db } = openCommandDatabase(loadConfig({ DATA_DIR: tempDir(), SQLITE_SYNCHRONOUS: 'full', SQLITE_LOCK_TIMEOUT_MS: '1234' }))
    expect([pragma(db, 'synchronous'), pragma(db, 'busy_timeout')]).toEqual([2, 1234])
    db.$client.close()
  })
})

describe('the import’s bulk mode', () => {
  test('writes with a rollback journal synced fully (NORMAL could be corrupted by a power cut), then returns to WAL and NORMAL', () => {
    const { db } = openCommandDatabase(loadConfig({ DATA_DIR: join(tempDir(), 'data') }))
    const bulk = enterBulkMode(db.$client, 1000)
    expect([pragma(db, 'journal_mode'), pragma(db, 'synchronous')]).toEqual(['delete', 2])
    bulk.leave()
    expect([pragma(db, 'journal_mode'), pragma(db, 'synchronous')]).toEqual(['wal', 1])
    db.$client.close()
  })
})
