// The PostgreSQL adapters' batched lookups (src/db/postgres/batched-lookup.ts): the lookups of
// one event-loop turn go as one query, each gets the rows with its own key, a failed query
// fails every lookup it carried. And the postgres-js queue patch that keeps the pool's queues short.
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { batchedLookup } from '../src/db/postgres/batched-lookup'

interface Row {
  key: string
  n: number
}

function table(rows: Row[]) {
  const queries: string[][] = []
  const load = async (keys: string[]) => {
    queries.push(keys)
    await Bun.sleep(1)
    return rows.filter((r) => keys.includes(r.key))
  }
  return { queries, lookup: batchedLookup(load, (r: Row) => r.key) }
}

describe('batched lookups', () => {
  test('the lookups of one turn go as one query of their distinct keys', async () => {
    const { queries, lookup } = table([
      { key: 'a', n: 1 },
      { key: 'b', n: 2 },
    ])
    const results = await Promise.all([lookup('a'), lookup('b'), lookup('a'), lookup('missing')])
    expect(queries).toEqual([['a', 'b', 'missing']])
    expect(results).toEqual([[{ key: 'a', n: 1 }], [{ key: 'b', n: 2 }], [{ key: 'a', n: 1 }], []])
  })

  test('every row with the key comes back, rows of keys nobody asked for do not', async () => {
    const rows = [
      { key: 'a', n: 1 },
      { key: 'a', n: 2 },
      { key: 'b', n: 3 },
    ]
    const lookup = batchedLookup(
      async () => rows,
      (r: Row) => r.key,
    )
    expect(await lookup('a')).toEqual([rows[0]!, rows[1]!])
  })

  test('a lookup asked in a later turn goes in a later query and sees what was written meanwhile', async () => {
    const rows: Row[] = []
    const { queries, lookup } = table(rows)
    expect(await lookup('a')).toEqual([])
    rows.push({ key: 'a', n: 1 })
    expect(await lookup('a')).toEqual([{ key: 'a', n: 1 }])
    expect(queries).toEqual([['a'], ['a']])
  })

  test('a failed query rejects every lookup it carried, and the next turn queries again', async () => {
    let fail = true
    const lookup = batchedLookup(
      async (keys: string[]) => {
        if (fail) throw new Error('connection lost')
        return keys.map((key) => ({ key, n: 0 }))
      },
      (r: Row) => r.key,
    )
    const results = await Promise.allSettled([lookup('a'), lookup('b')])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected'])
    fail = false
    expect(await lookup('a')).toEqual([{ key: 'a', n: 0 }])
  })

  test('more than 500 keys in a turn are split into queries of 500', async () => {
    const { queries, lookup } = table([{ key: 'k1200', n: 1 }])
    const results = await Promise.all(Array.from({ length: 1201 }, (_, i) => lookup(`k${i}`)))
    expect(queries.map((q) => q.length)).toEqual([500, 500, 201])
    expect(results[1200]).toEqual([{ key: 'k1200', n: 1 }])
    expect(results.filter((r) => r.length > 0)).toHaveLength(1)
  })
})

describe('postgres-js queues (patches/postgres@3.4.9.patch)', async () => {
  // Not exported by the package: loaded by path, as postgres-js itself loads it.
  type Queue<T> = { readonly length: number; push(x: T): T; shift(): T | undefined; remove(x: T): T | null }
  const { default: Queue } = (await import(join(import.meta.dir, '../node_modules/postgres/src/queue.js'))) as {
    default: <T>(initial?: T[]) => Queue<T>
  }

  test('a queue that never runs empty keeps its order, its length and its members', () => {
    const q = Queue<number>()
    q.push(0)
    q.push(1)
    for (let i = 2; i < 5000; i++) expect(q.push(i - 2 === q.shift() ? i : -1)).toBe(i)
    expect(q.length).toBe(2)
    expect(q.remove(4998)).toBe(4998)
    expect(q.remove(4998)).toBeNull()
    expect(q.shift()).toBe(4999)
    expect(q.length).toBe(0)
  })

  test('removing from a queue after a million shifts does not scan a million holes', () => {
    // Unpatched, the pool's open and busy queues grew by one hole per shift while never
    // empty (62,000 after a minute of /api/user/me) and every query's remove() scanned them:
    // 5,000 removes here took ~580 ms, patched ~0.3 ms.
    const q = Queue<object>()
    q.push({})
    q.push({})
    for (let i = 0; i < 1_000_000; i++) q.push(q.shift()!)
    const stranger = {}
    const started = performance.now()
    for (let i = 0; i < 5000; i++) q.remove(stranger)
    expect(performance.now() - started).toBeLessThan(100)
    expect(q.length).toBe(2)
  })
})
