// Operating the binary in a hostile environment: values the system would refuse without naming
// the variable, backups aimed at SQLite's own files, a restore onto a damaged database, onto a
// new machine, or under an import's feet, migrations started by several processes at once, and
// a database file overwritten or deleted under a running server (its health check), and
// on PostgreSQL a URL whose settings the server refuses and a `db copy` of rows it cannot store.
import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { randomBytes } from 'node:crypto'
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { openCommandStorage } from '../src/cli/context'
import { loadConfig } from '../src/config'
import { enterBulkMode } from '../src/db/sqlite/bulk'
import type { SqliteStorage } from '../src/db/storage'
import { HEALTH_CHECK_EVERY_MS } from '../src/db/sqlite/health'
import { GOOD_PASSWORD, makeTestApp, TEST_ENGINE, type TestApp, tempDir } from './support/app'
import { emptyDatabaseUrl } from './support/postgres'
import { cli, cliAsync, freePort } from './support/process'

const oneLine = (r: { stderr: string }) => {
  expect(r.stderr.trim().split('\n')).toHaveLength(1)
  expect(r.stderr).not.toMatch(/^\s+at /m)
  return r.stderr.trim()
}

function migratedDataDir(): { dir: string; file: string } {
  const dir = tempDir()
  expect(cli(['migrate'], { DATA_DIR: dir, DEMO_CATALOGUE: 'false' }).code).toBe(0)
  return { dir, file: join(dir, 'promptlib.db') }
}

function sqlite<T>(file: string, fn: (db: Database) => T): T {
  const db = new Database(file)
  try {
    return fn(db)
  } finally {
    db.close()
  }
}

const addUser = (file: string, id: string, email: string) =>
  sqlite(file, (db) => db.run(`INSERT INTO users (id, email, name, tier, created_at, updated_at) VALUES (?, ?, 'U', 'free', 1, 1)`, [id, email]))
const userIds = (file: string) =>
  sqlite(file, (db) =>
    db
      .query<{ id: string }, []>('SELECT id FROM users ORDER BY id')
      .all()
      .map((r) => r.id),
  )

describe('configuration the system would refuse without naming it', () => {
  test('HOST that is no address stops start-up with one line naming HOST; real addresses still pass', () => {
    for (const host of ['999.1.1.1', 'http://127.0.0.1', 'not a host']) {
      const r = cli(['serve'], { DATA_DIR: tempDir(), HOST: host, PORT: '0', DEMO_CATALOGUE: 'false' })
      expect(r.code).toBe(1)
      expect(oneLine(r)).toStartWith('promptlib: invalid configuration: HOST: ')
    }
    for (const host of ['0.0.0.0', '::', '::1', '127.0.0.1', 'localhost', 'fe80::1%lo', 'app.internal'])
      expect(loadConfig({ HOST: host }).host).toBe(host)
  })

  test('a number too large is quoted as given, not as 1e+23', () => {
    const r = cli(['migrate'], { DATA_DIR: tempDir(), PORT: '99999999999999999999999' })
    expect(r.code).toBe(1)
    expect(oneLine(r)).toBe('promptlib: invalid configuration: PORT: must be from 0 to 65535 (got 99999999999999999999999)')
  })

  test('a generated-secret file that cannot be read: one line naming it', () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'jwt-secret'))
    const r = cli(['serve'], { DATA_DIR: dir, JWT_SECRET: '', PORT: '0', DEMO_CATALOGUE: 'false', DATABASE_URL: '' })
    expect(r.code).toBe(1)
    expect(oneLine(r)).toContain(join(dir, 'jwt-secret'))
  })
})

describe('no secret in a message about the database', () => {
  test('a password given in the query of DATABASE_URL (as libpq allows) is left out like one in the user part', () => {
    const r = cli(['user', 'list'], {
      DATA_DIR: tempDir(),
      DATABASE_URL: `postgres://nobody@127.0.0.1:${freePort()}/promptlib?sslmode=disable&password=hunter2-query&sslpassword=hunter2-ssl`,
    })
    expect(r.code).toBe(1)
    expect(oneLine(r)).toContain('cannot reach PostgreSQL at postgres://nobody@127.0.0.1')
    expect(r.stderr).not.toContain('hunter2')
  })
})

describe('migrations started by several processes at once', () => {
  test('six `migrate` on one new database: all succeed, exactly one applies', async () => {
    const url = await emptyDatabaseUrl()
    const env = { DATA_DIR: tempDir(), ...(url ? { DATABASE_URL: url } : {}) }
    const runs = await Promise.all(Array.from({ length: 6 }, () => cliAsync(['migrate'], env)))
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0])
    expect(runs.filter((r) => r.stdout.startsWith('applied ')).length).toBe(1)
    expect(runs.filter((r) => r.stdout.trim() === 'database is up to date').length).toBe(5)
  })
})

describe.skipIf(TEST_ENGINE !== 'sqlite')('backup and restore in a hostile place (SQLite)', () => {
  test('a backup named like the database’s log or journal is refused: SQLite would delete it at the next open', () => {
    const { dir, file } = migratedDataDir()
    addUser(file, 'u1', 'ada@example.com')
    for (const suffix of ['-wal', '-journal', '-shm']) {
      const r = cli(['backup', `${file}${suffix}`], { DATA_DIR: dir })
      expect(r.code).toBe(2)
      expect(oneLine(r)).toContain('beside the database')
      expect(existsSync(`${file}${suffix}`)).toBe(false)
    }
    expect(readdirSync(dir).sort()).toEqual(['promptlib.db'])
  })

  test('restore over a damaged database (what it is for) puts the backup in place and keeps the damaged file', () => {
    const { dir, file } = migratedDataDir()
    addUser(file, 'u1', 'ada@example.com')
    const backup = join(tempDir(), 'good.db')
    expect(cli(['backup', backup], { DATA_DIR: dir }).code).toBe(0)
    // Pages in the middle overwritten: the commands call it damaged and say to restore from a backup.
    const fd = openSync(file, 'r+')
    writeSync(fd, Buffer.alloc(20 * 4096, 0xa5), 0, 20 * 4096, 5 * 4096)
    closeSync(fd)
    const damaged = cli(['user', 'list'], { DATA_DIR: dir })
    expect(damaged.code).toBe(1)
    expect(damaged.stderr).toContain('restore it from a backup')

    const r = cli(['restore', backup], { DATA_DIR: dir })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(userIds(file)).toEqual(['u1'])
    expect(cli(['user', 'list'], { DATA_DIR: dir }).code).toBe(0)
    expect(readdirSync(dir).filter((name) => name.startsWith('promptlib.db.before-restore-'))).toHaveLength(1)
  })

  test('restore onto a new machine: the data directory does not exist yet', () => {
    const { dir, file } = migratedDataDir()
    addUser(file, 'u1', 'ada@example.com')
    const backup = join(tempDir(), 'good.db')
    expect(cli(['backup', backup], { DATA_DIR: dir }).code).toBe(0)

    const fresh = join(tempDir(), 'srv', 'promptlib data')
    const r = cli(['restore', backup], { DATA_DIR: fresh })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(userIds(join(fresh, 'promptlib.db'))).toEqual(['u1'])
    expect(statSync(fresh).mode & 0o777).toBe(0o700)
    expect(statSync(join(fresh, 'promptlib.db')).mode & 0o777).toBe(0o600)
  })

  test('restore while an import writes alone (rollback journal, idle between files or mid-transaction): refused, nothing changed', async () => {
    const { dir, file } = migratedDataDir()
    const backup = join(tempDir(), 'empty.db')
    expect(cli(['backup', backup], { DATA_DIR: dir }).code).toBe(0)
    addUser(file, 'u1', 'ada@example.com')

    // What `promptlib import` holds: one connection, in bulk mode (db/sqlite/bulk.ts).
    const { storage } = await openCommandStorage(loadConfig({ DATA_DIR: dir }), { singleConnection: true })
    const client = (storage as SqliteStorage).writer.$client
    const bulk = enterBulkMode(client, 1000)
    expect(bulk.active).toBe(true)
    try {
      // Between two files: no lock held. Then inside a file's transaction.
      for (const inTransaction of [false, true]) {
        if (inTransaction) {
          client.run('BEGIN IMMEDIATE')
          client.run(`INSERT INTO users (id, email, name, tier, created_at, updated_at) VALUES ('u2', 'bob@example.com', 'B', 'free', 1, 1)`)
        }
        const r = await cliAsync(['restore', backup], { DATA_DIR: dir })
        expect(r.code).toBe(1)
        expect(oneLine(r)).toContain('nothing changed')
        expect(readdirSync(dir).filter((name) => !name.startsWith('promptlib.db-'))).toEqual(['promptlib.db'])
      }
      client.run('COMMIT')
      // The import's writes land in the database that is served, not in a file set aside.
      expect(client.query<{ n: number }, []>('SELECT count(*) AS n FROM users').get()!.n).toBe(2)
    } finally {
      if (client.inTransaction) client.run('ROLLBACK')
      bulk.leave()
      await storage.close()
    }
    expect(userIds(file)).toEqual(['u1', 'u2'])
  })
})

describe.skipIf(TEST_ENGINE !== 'sqlite')('/api/health when the database file goes bad under a running server (SQLite)', () => {
  // The server's connections keep the file open and its pages cached: they would go on answering.
  const healthAfter = async (t: TestApp, damage: (file: string) => void) => {
    expect((await t.request('/api/health')).status).toBe(200)
    expect((await t.request('/api/categories')).status).toBe(200)
    damage(join(t.dataDir, 'promptlib.db'))
    // An answer stands for HEALTH_CHECK_EVERY_MS: the next check comes within it.
    await Bun.sleep(HEALTH_CHECK_EVERY_MS + 50)
    const res = await t.request('/api/health')
    return { status: res.status, body: await res.json() }
  }

  test('overwritten with other bytes: 503 {status: error, db: error}, as real queries fail', async () => {
    const t = await makeTestApp({}, { databaseUrl: null })
    const noise = (file: string) => {
      for (const f of [file, `${file}-wal`]) writeFileSync(f, randomBytes(64 * 1024))
    }
    expect(await healthAfter(t, noise)).toEqual({ status: 503, body: { status: 'error', version: expect.any(String), db: 'error' } })
    expect(
      (await t.request('/api/auth/register', { method: 'POST', json: { email: 'x@example.com', password: GOOD_PASSWORD, name: 'X' } })).status,
    ).toBe(500)
  })

  test('deleted (the data directory emptied): 503, and nothing is created in its place', async () => {
    const t = await makeTestApp({}, { databaseUrl: null })
    const remove = (file: string) => {
      for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true })
    }
    expect((await healthAfter(t, remove)).status).toBe(503)
    expect(existsSync(join(t.dataDir, 'promptlib.db'))).toBe(false)
  })

  test('a healthy database stays 200 across checks, its write lock held by another connection included', async () => {
    const t = await makeTestApp({}, { databaseUrl: null })
    const other = new Database(join(t.dataDir, 'promptlib.db'))
    try {
      other.run('BEGIN IMMEDIATE')
      for (let i = 0; i < 3; i++) {
        expect((await t.request('/api/health')).status).toBe(200)
        await Bun.sleep(HEALTH_CHECK_EVERY_MS / 2)
      }
    } finally {
      other.run('ROLLBACK')
      other.close()
    }
  })
})

describe.skipIf(TEST_ENGINE !== 'postgres')('PostgreSQL refusals (one line, exit 1)', () => {
  test('a DATABASE_URL setting the server refuses: one line naming it, no password', async () => {
    const url = new URL((await emptyDatabaseUrl())!)
    url.password = 'hunter2-secret'
    for (const query of ['?foo=bar', '?statement_timeout=soon', '?password=hunter2-secret']) {
      const r = cli(['migrate'], { DATA_DIR: tempDir(), DATABASE_URL: `${url}${query}` })
      expect(r.code).toBe(1)
      const line = oneLine(r)
      expect(line).toContain('refused a setting')
      expect(line).toContain('DATABASE_URL')
      expect(line).not.toContain('hunter2-secret')
    }
  })

  test('db copy of rows PostgreSQL cannot store (NUL in text, a date past 9999): refused naming the row, nothing copied', async () => {
    const { dir, file } = migratedDataDir()
    const target = (await emptyDatabaseUrl())!
    sqlite(file, (db) => {
      db.run(`INSERT INTO users (id, email, name, tier, created_at, updated_at) VALUES ('u1', 'a@example.com', 'A' || char(0) || 'B', 'free', 1, 1)`)
      db.run(`INSERT INTO users (id, email, name, tier, created_at, updated_at) VALUES ('u2', 'b@example.com', 'B', 'free', 253402300800000, 1)`)
    })
    const nul = cli(['db', 'copy', '--to', target], { DATA_DIR: dir })
    expect(nul.code).toBe(1)
    expect(nul.stderr).not.toContain('unexpected error')
    expect(nul.stderr).toContain('promptlib: table "users", row id "u1": column name holds a NUL character')
    expect(nul.stderr).toContain('nothing was copied')

    sqlite(file, (db) => db.run(`UPDATE users SET name = 'AB' WHERE id = 'u1'`))
    const date = cli(['db', 'copy', '--to', target], { DATA_DIR: dir })
    expect(date.code).toBe(1)
    expect(date.stderr).toContain('promptlib: table "users", row id "u2": column created_at holds a date out of the range 0001-9999')

    // Nothing was left half-copied: once the rows are corrected, the same target takes the copy.
    sqlite(file, (db) => db.run(`UPDATE users SET created_at = 1 WHERE id = 'u2'`))
    const copied = cli(['db', 'copy', '--to', target], { DATA_DIR: dir })
    expect(copied.stderr).not.toContain('promptlib:')
    expect(copied.code).toBe(0)
    expect(copied.stdout).toContain('every count matches')
  })
})
