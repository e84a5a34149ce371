// The command line, run as a real process (contract section 11).
import { describe, expect, test } from 'bun:test'
import { cli } from './support/process'
import { tempDir } from './support/app'
import { join } from 'node:path'
import { existsSync } from 'node:fs'
import { Database } from 'bun:sqlite'

describe('promptlib CLI', () => {
  test('help and version', () => {
    const help = cli(['help'], {})
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('promptlib user set-tier EMAIL TIER')
    expect(cli(['--version'], {}).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
  })

  test('unknown command → exit 2 with usage', () => {
    const r = cli(['frobnicate'], {})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('unknown command "frobnicate"')
  })

  test('a bad configuration stops with one line naming the variable', () => {
    const r = cli(['migrate'], { PORT: 'eighty', DATA_DIR: tempDir() })
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringContaining('PORT')])
    expect(r.stderr).toContain('invalid configuration')
  })

  test('migrate creates the database and is idempotent', () => {
    const dir = tempDir()
    const first = cli(['migrate'], { DATA_DIR: dir })
    expect(first.code).toBe(0)
    expect(first.stdout).toContain('applied 0000_init')
    expect(existsSync(join(dir, 'promptlib.db'))).toBe(true)
    expect(cli(['migrate'], { DATA_DIR: dir }).stdout).toContain('up to date')
  })

  test('user list and user set-tier', () => {
    const dir = tempDir()
    expect(cli(['migrate'], { DATA_DIR: dir }).code).toBe(0)
    const db = new Database(join(dir, 'promptlib.db'))
    db.run(`INSERT INTO users (id, email, name, tier, created_at, updated_at) VALUES ('u1', 'ada@example.com', 'Ada', 'free', 1, 1)`)
    db.close()

    const set = cli(['user', 'set-tier', 'ADA@example.com', 'pro'], { DATA_DIR: dir })
    expect(set.code).toBe(0)
    expect(set.stdout).toContain('ada@example.com is now on the pro tier')

    const list = cli(['user', 'list'], { DATA_DIR: dir })
    expect(list.code).toBe(0)
    const [header, row] = list.stdout.trim().split('\n')
    expect(header).toMatch(/^ID\s+EMAIL\s+NAME\s+TIER\s+CREATED_AT$/)
    expect(row).toMatch(/^u1\s+ada@example\.com\s+Ada\s+pro\s+1970-01-01T00:00:00\.001Z$/)
  })

  test('set-tier refuses unknown tiers and unknown users', () => {
    const dir = tempDir()
    const badTier = cli(['user', 'set-tier', 'ada@example.com', 'gold'], { DATA_DIR: dir })
    expect(badTier.code).toBe(2)
    expect(badTier.stderr).toContain('unknown tier "gold"')
    const nobody = cli(['user', 'set-tier', 'nobody@example.com', 'pro'], { DATA_DIR: dir })
    expect(nobody.code).toBe(1)
    expect(nobody.stderr).toContain('no user with e-mail nobody@example.com')
    expect(cli(['user', 'set-tier', 'only-one-arg'], { DATA_DIR: dir }).code).toBe(2)
  })
})
