// Reads queued in one event-loop turn share one read transaction; each settles on its own.
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { openDatabase } from '../src/db/sqlite/client'
import { createReadBatcher } from '../src/db/sqlite/read-batch'
import { tempDir, TEST_ENGINE } from './support/app'

function setup() {
  const db = openDatabase(join(tempDir(), 'batch.db'))
  db.$client.run('CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER)')
  db.$client.run("INSERT INTO kv VALUES ('a', 1), ('b', 2)")
  return db
}

describe.skipIf(TEST_ENGINE !== 'sqlite')('SQLite: createReadBatcher', () => {
  test('reads in one turn run together, in one transaction, each with its own result', async () => {
    const db = setup()
    const read = createReadBatcher(db)
    const get = db.$client.query('SELECT v FROM kv WHERE k = ?')
    let inTransaction = 0
    const results = await Promise.all(
      ['a', 'b', 'a', 'zz'].map((k) =>
        read(() => {
          if (db.$client.inTransaction) inTransaction++
          return (get.get(k) as { v: number } | null)?.v ?? null
        }),
      ),
    )
    expect(results).toEqual([1, 2, 1, null])
    expect(inTransaction).toBe(4)
    expect(db.$client.inTransaction).toBe(false)
  })

  test('one failing read rejects alone', async () => {
    const db = setup()
    const read = createReadBatcher(db)
    const [ok, bad, ok2] = await Promise.allSettled([
      read(() => 1),
      read(() => {
        throw new Error('boom')
      }),
      read(() => db.$client.query("SELECT v FROM kv WHERE k = 'b'").get()),
    ])
    expect(ok).toEqual({ status: 'fulfilled', value: 1 })
    expect(bad.status).toBe('rejected')
    expect(ok2).toEqual({ status: 'fulfilled', value: { v: 2 } })
  })

  test('a read sees writes committed before it ran (nothing is cached)', async () => {
    const db = setup()
    const read = createReadBatcher(db)
    const pending = read(() => db.$client.query("SELECT v FROM kv WHERE k = 'a'").get())
    db.$client.run("UPDATE kv SET v = 42 WHERE k = 'a'")
    expect(await pending).toEqual({ v: 42 })
  })

  test('a closed database rejects every queued read', async () => {
    const db = setup()
    const read = createReadBatcher(db)
    const pending = [read(() => db.$client.query('SELECT 1').get()), read(() => db.$client.query('SELECT 2').get())]
    db.$client.close()
    const settled = await Promise.allSettled(pending)
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected'])
  })
})
