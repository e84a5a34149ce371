// WAL checkpoints run in a worker thread, so commits on the serving connection never do; the
// worker also keeps the log bounded under continuous writes and truncates it when they stop.
import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { startBackgroundCheckpoints } from '../src/db/sqlite/checkpointer'
import { DATABASE_FILE, openDatabase } from '../src/db/sqlite/client'
import { WAL_RESTART_ABOVE_BYTES } from '../src/db/sqlite/wal'
import { createMemoryLogger } from '../src/log'
import { GOOD_PASSWORD, tempDir, TEST_ENGINE } from './support/app'
import { startServer } from './support/process'

const autocheckpoint = (db: ReturnType<typeof openDatabase>) =>
  (db.$client.query('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint

describe.skipIf(TEST_ENGINE !== 'sqlite')('SQLite: background checkpoints', () => {
  test('the serving connection stops checkpointing; the worker copies the log into the database', async () => {
    const file = join(tempDir(), 'c.db')
    const db = openDatabase(file)
    db.$client.run('CREATE TABLE t (x TEXT)')
    const log = createMemoryLogger('debug')
    const checkpoints = startBackgroundCheckpoints(db, file, log)
    for (let i = 0; i < 50 && autocheckpoint(db) !== 0; i++) await Bun.sleep(20)
    expect(autocheckpoint(db)).toBe(0)
    expect(log.lines().some((l) => l.msg === 'background checkpoints started')).toBe(true)

    const before = statSync(file).size
    const insert = db.$client.prepare('INSERT INTO t VALUES (?)')
    db.$client.transaction(() => {
      for (let i = 0; i < 500; i++) insert.run('x'.repeat(4000))
    })()
    expect(statSync(file).size).toBe(before) // committed to the log only
    await Bun.sleep(1500)
    expect(statSync(file).size).toBeGreaterThan(before + 1_000_000) // copied by the worker

    await checkpoints.stop()
    expect(autocheckpoint(db)).toBe(1000)
    db.$client.close()
  })
})

describe.skipIf(TEST_ENGINE !== 'sqlite')('SQLite: the log stays bounded', () => {
  test('16 clients adding and removing favorites: the log stays under 256 MiB, and is truncated once they stop', async () => {
    const dir = tempDir()
    const server = await startServer({ DATA_DIR: dir, AUTH_RATE_LIMIT: '0', LOG_LEVEL: 'warn' })
    try {
      const registered = await fetch(`${server.url}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'wal@example.com', password: GOOD_PASSWORD, name: 'Wal' }),
      })
      const { access_token } = (await registered.json()) as { access_token: string }
      const headers = { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' }
      const readonly = new Database(join(dir, DATABASE_FILE), { readonly: true })
      const ids = (readonly.query('SELECT id FROM prompts LIMIT 16').all() as { id: string }[]).map((r) => r.id)
      readonly.close()
      expect(ids).toHaveLength(16)

      const wal = join(dir, `${DATABASE_FILE}-wal`)
      const walBytes = () => (existsSync(wal) ? statSync(wal).size : 0)
      let largest = 0
      const sampler = setInterval(() => (largest = Math.max(largest, walBytes())), 20)
      let writing = true
      let writes = 0
      const client = async (id: string) => {
        while (writing) {
          const added = await fetch(`${server.url}/api/user/favorites`, { method: 'POST', headers, body: JSON.stringify({ prompt_id: id }) })
          const removed = await fetch(`${server.url}/api/user/favorites/${id}`, { method: 'DELETE', headers })
          expect([added.status, removed.status]).toEqual([201, 204])
          writes += 2
        }
      }
      // Here the unbounded log (PASSIVE checkpoints only) reached about 800 MB in these 4 s; bounded,
      // it peaked near 100 MB (160 MB while another process saturated the disk): 4× the threshold leaves room.
      const clients = ids.map(client)
      await Bun.sleep(4000)
      writing = false
      await Promise.all(clients)
      clearInterval(sampler)
      expect(writes).toBeGreaterThan(4000)
      expect(largest).toBeGreaterThan(0)
      expect(largest).toBeLessThan(4 * WAL_RESTART_ABOVE_BYTES)

      const deadline = Date.now() + 3000
      while (walBytes() > 0 && Date.now() < deadline) await Bun.sleep(50)
      expect(walBytes()).toBe(0)
    } finally {
      server.kill()
      await server.exited
    }
  }, 20_000)

  test('a log that a long reader keeps from starting over is reported', async () => {
    const file = join(tempDir(), 'stuck.db')
    const db = openDatabase(file)
    db.$client.run('CREATE TABLE t (x TEXT)')
    const log = createMemoryLogger('debug')
    const checkpoints = startBackgroundCheckpoints(db, file, log, { reportStuckAfterMs: 0 })
    for (let i = 0; i < 50 && autocheckpoint(db) !== 0; i++) await Bun.sleep(20)

    const reader = new Database(file, { readonly: true })
    reader.run('BEGIN')
    reader.query('SELECT count(*) FROM t').get() // a snapshot the log must keep
    const insert = db.$client.prepare('INSERT INTO t VALUES (?)')
    const row = 'x'.repeat(4000)
    while (statSync(`${file}-wal`).size <= WAL_RESTART_ABOVE_BYTES)
      db.$client.transaction(() => {
        for (let i = 0; i < 1000; i++) insert.run(row)
      })()
    const stuck = () => log.lines().find((l) => String(l.msg).startsWith('the SQLite log keeps growing'))
    for (let i = 0; i < 100 && !stuck(); i++) await Bun.sleep(20)
    expect(stuck()).toMatchObject({ level: 'warn', file: `${file}-wal`, wal_bytes: expect.any(Number) })

    reader.run('COMMIT')
    reader.close()
    for (let i = 0; i < 100 && statSync(`${file}-wal`).size > 0; i++) await Bun.sleep(50)
    expect(statSync(`${file}-wal`).size).toBe(0) // restarted, then truncated once idle
    await checkpoints.stop()
    db.$client.close()
  }, 15_000)
})
