// Group commit (src/db/sqlite/write-batch.ts): writes made together share one write transaction,
// each in a savepoint of its own, and every caller is answered after the COMMIT.
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { openDatabase } from '../src/db/sqlite/client'
import { openSqlite } from '../src/db/sqlite/storage'
import { tempDir, TEST_ENGINE } from './support/app'

function open() {
  const file = join(tempDir(), 'group.db')
  const setup = openDatabase(file)
  setup.$client.run('CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL)')
  setup.$client.close()
  return { file, storage: openSqlite(file) }
}

/** What another connection sees: what is committed. */
function committed(file: string): Record<string, number> {
  const other = openDatabase(file)
  try {
    const rows = other.$client.query('SELECT k, v FROM kv ORDER BY k').all() as { k: string; v: number }[]
    return Object.fromEntries(rows.map((r) => [r.k, r.v]))
  } finally {
    other.$client.close()
  }
}

const insert = (k: string, v: number) => (db: Parameters<Parameters<ReturnType<typeof openSqlite>['write']>[0]>[0]) =>
  db.$client.run('INSERT INTO kv (k, v) VALUES (?, ?)', [k, v]).changes

describe.skipIf(TEST_ENGINE !== 'sqlite')('SQLite: writes made together', () => {
  test('share one transaction, in the order they were made, each seeing those before it', async () => {
    const { storage } = open()
    const seen: number[] = []
    const count = () => (storage.writer.$client.query('SELECT count(*) AS n FROM kv').get() as { n: number }).n
    const results = await Promise.all(
      ['a', 'b', 'c'].map((k, i) =>
        storage.write((db) => {
          seen.push(count())
          return insert(k, i)(db)
        }),
      ),
    )
    expect(results).toEqual([1, 1, 1])
    expect(seen).toEqual([0, 1, 2])
    await storage.close()
  })

  test('one that throws is rolled back alone, and only its caller sees the error', async () => {
    const { file, storage } = open()
    const settled = await Promise.allSettled([
      storage.write(insert('a', 1)),
      storage.write((db) => {
        insert('b', 2)(db)
        insert('a', 3)(db) // the primary key refuses it: 'b' goes too
      }),
      storage.write(insert('c', 4)),
    ])
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect(String((settled[1] as PromiseRejectedResult).reason)).toContain('UNIQUE')
    expect(committed(file)).toEqual({ a: 1, c: 4 })
    await storage.close()
  })

  test('one that ends the transaction fails them all, and none is stored', async () => {
    const { file, storage } = open()
    const settled = await Promise.allSettled([
      storage.write(insert('a', 1)),
      storage.write((db) => {
        db.$client.run('ROLLBACK')
      }),
      storage.write(insert('c', 3)),
    ])
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected'])
    expect(committed(file)).toEqual({})
    // The next writes go on as usual.
    await storage.write(insert('d', 4))
    expect(committed(file)).toEqual({ d: 4 })
    await storage.close()
  })

  test('a caller is answered once its write is committed, and a write alone behaves as before', async () => {
    const { file, storage } = open()
    expect(await storage.write(insert('a', 1))).toBe(1)
    expect(committed(file)).toEqual({ a: 1 })
    await expect(storage.write(insert('a', 2))).rejects.toThrow('UNIQUE')
    expect(committed(file)).toEqual({ a: 1 })
    expect(storage.writer.$client.inTransaction).toBe(false)
    await storage.close()
  })

  test('writes made while a transaction holds the write lock wait for it, then commit together after it', async () => {
    const { file, storage } = open()
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const transaction = storage.transaction(async (tx) => {
      await storage.write(insert('t', 0), tx)
      await held
    })
    await Bun.sleep(1)
    const writes = [storage.write(insert('a', 1)), storage.write(insert('b', 2))]
    await Bun.sleep(5)
    expect(committed(file)).toEqual({})
    release()
    await transaction
    expect(await Promise.all(writes)).toEqual([1, 1])
    expect(committed(file)).toEqual({ a: 1, b: 2, t: 0 })
    await storage.close()
  })
})
