// WAL checkpoints run in a worker thread, so commits on the serving connection never do.
import { describe, expect, test } from 'bun:test'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { startBackgroundCheckpoints } from '../src/db/checkpointer'
import { openDatabase } from '../src/db/client'
import { createMemoryLogger } from '../src/log'
import { tempDir } from './support/app'

const autocheckpoint = (db: ReturnType<typeof openDatabase>) =>
  (db.$client.query('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint

describe('background checkpoints', () => {
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
