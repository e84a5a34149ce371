// The reads of one event-loop turn share one read transaction; a request waits for it once, its
// later reads run at once in the same snapshot, and a write of this process ends that snapshot
// (a read after it begins a new one at once).
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { openDatabase } from '../src/db/sqlite/client'
import { createReadBatcher } from '../src/db/sqlite/read-batch'
import { openSqlite } from '../src/db/sqlite/storage'
import { tempDir, TEST_ENGINE } from './support/app'

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

function setup() {
  const file = join(tempDir(), 'batch.db')
  const db = openDatabase(file)
  db.$client.run('CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER)')
  db.$client.run("INSERT INTO kv VALUES ('a', 1), ('b', 2)")
  return { file, db }
}

describe.skipIf(TEST_ENGINE !== 'sqlite')('SQLite: reads of one turn', () => {
  test('reads queued in one turn run together, in one transaction, each with its own result', async () => {
    const { db } = setup()
    const turn = createReadBatcher(db)
    const get = db.$client.query('SELECT v FROM kv WHERE k = ?')
    const results = await Promise.all(
      ['a', 'b', 'a', 'zz'].map((k) => turn.read(() => [db.$client.inTransaction, (get.get(k) as { v: number } | null)?.v ?? null])),
    )
    expect(results).toEqual([
      [true, 1],
      [true, 2],
      [true, 1],
      [true, null],
    ])
    await nextTurn()
    expect(db.$client.inTransaction).toBe(false)
  })

  test("a request's later reads do not wait for another turn", async () => {
    const { db } = setup()
    const turn = createReadBatcher(db)
    const get = db.$client.query('SELECT v FROM kv WHERE k = ?')
    let turnsPassed = 0
    const request = async () => {
      const a = await turn.read(() => get.get('a'))
      const later = setImmediate(() => turnsPassed++)
      const b = await turn.read(() => get.get('b'))
      await Promise.resolve() // a few awaits between reads, as services have
      await Promise.resolve()
      const c = await turn.read(() => get.get('a'))
      clearImmediate(later)
      return [a, b, c]
    }
    expect(await request()).toEqual([{ v: 1 }, { v: 2 }, { v: 1 }])
    expect(turnsPassed).toBe(0)
  })

  test('one failing read rejects alone', async () => {
    const { db } = setup()
    const turn = createReadBatcher(db)
    const [ok, bad, ok2] = await Promise.allSettled([
      turn.read(() => 1),
      turn.read(() => {
        throw new Error('boom')
      }),
      turn.read(() => db.$client.query("SELECT v FROM kv WHERE k = 'b'").get()),
    ])
    expect(ok).toEqual({ status: 'fulfilled', value: 1 })
    expect(bad.status).toBe('rejected')
    expect(ok2).toEqual({ status: 'fulfilled', value: { v: 2 } })
  })

  test("another connection's commit is seen once the snapshot has ended", async () => {
    const { file, db } = setup()
    const other = openDatabase(file)
    const turn = createReadBatcher(db)
    const read = () => turn.read(() => db.$client.query("SELECT v FROM kv WHERE k = 'a'").get())
    expect(await read()).toEqual({ v: 1 })
    other.$client.run("UPDATE kv SET v = 42 WHERE k = 'a'")
    expect(await read()).toEqual({ v: 1 }) // the same snapshot
    await nextTurn()
    expect(await read()).toEqual({ v: 42 })
    other.$client.close()
  })

  test('a closed database rejects every queued read', async () => {
    const { db } = setup()
    const turn = createReadBatcher(db)
    const pending = [turn.read(() => db.$client.query('SELECT 1').get()), turn.read(() => db.$client.query('SELECT 2').get())]
    db.$client.close()
    const settled = await Promise.allSettled(pending)
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected'])
  })
})

describe.skipIf(TEST_ENGINE !== 'sqlite')('SQLite storage: reads and writes', () => {
  const value = (storage: ReturnType<typeof openSqlite>, tx?: Parameters<typeof storage.read>[1]) =>
    storage.read((db) => (db.$client.query("SELECT v FROM kv WHERE k = 'a'").get() as { v: number }).v, tx)

  test('a request reads what it has just written, by write() or by transaction()', async () => {
    const { file, db } = setup()
    db.$client.close()
    const storage = openSqlite(file)
    expect(await value(storage)).toBe(1)
    await storage.write((w) => w.$client.run("UPDATE kv SET v = 2 WHERE k = 'a'"))
    expect(await value(storage)).toBe(2)
    await storage.transaction(async (tx) => {
      await storage.write((w) => w.$client.run("UPDATE kv SET v = 3 WHERE k = 'a'"), tx)
      expect(await value(storage, tx)).toBe(3)
    })
    expect(await value(storage)).toBe(3)
    await storage.close()
  })

  test('a write does not wait for our own open read snapshot (a checkpoint may be waiting for it)', async () => {
    const { file, db } = setup()
    db.$client.close()
    const storage = openSqlite(file)
    expect(await value(storage)).toBe(1)
    expect(storage.reader.$client.inTransaction).toBe(true)
    await storage.write((w) => {
      expect(storage.reader.$client.inTransaction).toBe(false)
      w.$client.run("UPDATE kv SET v = 5 WHERE k = 'a'")
    })
    await storage.close()
  })

  test('a read after our own write does not wait for another turn, and sees the write', async () => {
    const { file, db } = setup()
    db.$client.close()
    const storage = openSqlite(file)
    let turnsPassed = 0
    const request = async () => {
      const before = await value(storage)
      const later = setImmediate(() => turnsPassed++)
      await storage.write((w) => w.$client.run("UPDATE kv SET v = 9 WHERE k = 'a'"))
      const after = await value(storage)
      clearImmediate(later)
      return [before, after]
    }
    expect(await request()).toEqual([1, 9])
    expect(turnsPassed).toBe(0)
    await nextTurn()
    expect(storage.reader.$client.inTransaction).toBe(false)
    await storage.close()
  })

  test('an export snapshot keeps its state while request reads see new commits', async () => {
    const { file, db } = setup()
    db.$client.close()
    const storage = openSqlite(file)
    await storage.snapshot(async (tx) => {
      expect(await value(storage, tx)).toBe(1)
      await storage.write((w) => w.$client.run("UPDATE kv SET v = 7 WHERE k = 'a'"))
      expect(await value(storage)).toBe(7)
      expect(await value(storage, tx)).toBe(1)
    })
    await storage.close()
  })
})
