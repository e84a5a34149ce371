// `promptlib backup PATH` and `promptlib restore PATH` (docs/operations.md): a consistent copy of
// the SQLite database while the server runs and writes; a restore refuses a database a server has
// open, and otherwise puts the backup in place (keeping the one it replaces). On PostgreSQL both
// point to pg_dump.
import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { copyFileSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { processEnv, TEST_ENGINE, tempDir } from './support/app'
import { cli, cliAsync, startServer } from './support/process'
import { canMountTmpfs, withSmallDisk } from './support/disk'

const fixture = join(import.meta.dir, 'fixtures', 'catalogue-good.json')

const count = (file: string, table: string) => {
  const db = new Database(file, { readonly: true })
  try {
    return db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n
  } finally {
    db.close()
  }
}

describe.skipIf(TEST_ENGINE !== 'sqlite')('SQLite backup and restore', () => {
  test('backup while the server serves and writes: a whole, private copy; never over an existing file', async () => {
    const env = await processEnv({ DEMO_CATALOGUE: 'false' })
    expect(cli(['import', fixture], env).code).toBe(0)
    const server = await startServer(env)
    try {
      // Writes keep coming during the backup (registrations).
      let writing = true
      let registered = 0
      const writer = (async () => {
        for (let i = 0; writing; i++) {
          const res = await fetch(`${server.url}/api/auth/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: `w${i}@example.com`, password: 'a sufficiently long passphrase', name: 'W' }),
          })
          if (res.status === 201) registered++
        }
      })()
      await Bun.sleep(200)
      const target = join(tempDir(), 'backup.db')
      const r = await cliAsync(['backup', target], env)
      writing = false
      await writer
      expect(r).toMatchObject({ code: 0, stderr: '' })
      expect(r.stdout).toMatch(/^backed up .*promptlib\.db to .*backup\.db \([\d.]+ MB, [\d.]+ s\)\n$/)
      expect(registered).toBeGreaterThan(0)
      expect(statSync(target).mode & 0o777).toBe(0o600)
      const db = new Database(target, { readonly: true })
      expect(db.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
      db.close()
      expect(count(target, 'prompts')).toBe(3)

      const again = await cliAsync(['backup', target], env)
      expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining('already exists; choose a new name') })
      expect(readdirSync(join(target, '..'))).toEqual(['backup.db'])
    } finally {
      server.kill()
      await server.exited
    }
  }, 30_000)

  test('restore refuses while a server has the database open; once stopped, the backup is served and the old database kept', async () => {
    const env = await processEnv({ DEMO_CATALOGUE: 'false' })
    const file = join(env.DATA_DIR!, 'promptlib.db')
    expect(cli(['import', fixture], env).code).toBe(0)
    const target = join(tempDir(), 'before.db')
    expect(cli(['backup', target], env).code).toBe(0)
    // After the backup: a new prompt the restore must take away.
    const later = join(tempDir(), 'later.csv')
    writeFileSync(later, 'act,prompt\nLater,Added after the backup\n')
    expect(cli(['import', later], env).code).toBe(0)
    expect(count(file, 'prompts')).toBe(4)

    const server = await startServer(env)
    try {
      const refused = await cliAsync(['restore', target], env)
      expect(refused).toMatchObject({ code: 1, stdout: '' })
      expect(refused.stderr).toContain('is open in another process (a running server or an import); stop it, then restore; nothing changed')
      expect(((await (await fetch(`${server.url}/api/categories/general`)).json()) as { prompt_count: number }).prompt_count).toBe(1)
    } finally {
      server.kill()
      await server.exited
    }
    expect(count(file, 'prompts')).toBe(4)

    const restored = cli(['restore', target], env)
    expect(restored).toMatchObject({ code: 0, stderr: '' })
    expect(restored.stdout).toMatch(
      /^restored .*before\.db to .*promptlib\.db\nthe database it replaced is kept as .*promptlib\.db\.before-restore-\d{8}T\d{6}Z\n$/,
    )
    const kept = readdirSync(env.DATA_DIR!).find((name) => name.startsWith('promptlib.db.before-restore-'))!
    expect(count(join(env.DATA_DIR!, kept), 'prompts')).toBe(4)

    const again = await startServer(env)
    try {
      const res = await fetch(`${again.url}/api/categories`)
      expect(((await res.json()) as { items: { id: string }[] }).items.map((c) => c.id)).not.toContain('general')
    } finally {
      again.kill()
      await again.exited
    }
  }, 30_000)

  // A copy of a data directory taken from a killed server keeps its latest writes in the -wal
  // beside the database: restore checked them (through SQLite) but copied the main file alone.
  test('restore of a database with its log beside it brings the writes in that log', () => {
    const source = { DATA_DIR: tempDir(), DEMO_CATALOGUE: 'false' }
    expect(cli(['migrate'], source).code).toBe(0)
    const file = join(source.DATA_DIR, 'promptlib.db')
    const writer = new Database(file)
    writer.run('PRAGMA wal_autocheckpoint = 0')
    writer.run(
      "INSERT INTO categories (id, name, description, icon, sort_order, created_at, updated_at) VALUES ('only-in-the-log', 'Log', '', '', 1, 0, 0)",
    )
    // Copied while the writer still has it open, as a copy of a running server's directory: nothing checkpointed yet.
    const copy = tempDir()
    for (const name of ['promptlib.db', 'promptlib.db-wal']) copyFileSync(join(source.DATA_DIR, name), join(copy, name))
    writer.close()
    expect(statSync(join(copy, 'promptlib.db-wal')).size).toBeGreaterThan(0)
    const env = { DATA_DIR: tempDir(), DEMO_CATALOGUE: 'false' }
    expect(cli(['restore', join(copy, 'promptlib.db')], env).code).toBe(0)
    expect(count(join(env.DATA_DIR, 'promptlib.db'), "categories WHERE id = 'only-in-the-log'")).toBe(1)
  }, 30_000)

  test.skipIf(!canMountTmpfs)(
    'backup onto a full disk names that disk, and leaves nothing there',
    () => {
      const env = { DATA_DIR: tempDir(), DEMO_CATALOGUE: 'false' }
      expect(cli(['import', fixture], env).code).toBe(0)
      withSmallDisk('64k', (disk) => {
        const r = cli(['backup', join(disk, 'b.db')], env)
        expect(r.code).toBe(1)
        expect(r.stderr).toBe(`promptlib: the disk holding ${disk} is full; nothing written (the database is untouched)\n`)
        expect(readdirSync(disk)).toEqual([])
      })
    },
    30_000,
  )

  test('restore refuses what is not a promptlib database, and a missing file', () => {
    const env = { DATA_DIR: tempDir(), DEMO_CATALOGUE: 'false' }
    const junk = join(tempDir(), 'junk.db')
    writeFileSync(junk, 'not a database at all, just text '.repeat(100))
    expect(cli(['restore', junk], env)).toMatchObject({ code: 1, stderr: expect.stringContaining('cannot be restored') })
    const empty = join(tempDir(), 'empty.db')
    new Database(empty).close()
    expect(cli(['restore', empty], env)).toMatchObject({ code: 1, stderr: expect.stringContaining('not a promptlib database') })
    expect(cli(['restore', join(tempDir(), 'missing.db')], env)).toMatchObject({ code: 1, stderr: expect.stringContaining('no such file') })
    expect(existsSync(join(env.DATA_DIR, 'promptlib.db'))).toBe(false)
  }, 30_000)
})

describe.skipIf(TEST_ENGINE !== 'postgres')('PostgreSQL backup', () => {
  test('backup and restore point to pg_dump', async () => {
    const env = await processEnv()
    for (const command of ['backup', 'restore']) {
      const r = cli([command, join(tempDir(), 'x.db')], env)
      expect(r).toMatchObject({ code: 1, stdout: '' })
      expect(r.stderr).toContain('back it up with pg_dump')
    }
  }, 30_000)
})
