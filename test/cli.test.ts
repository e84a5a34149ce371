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

  test('user tokens lists a user’s tokens and --revoke revokes one', () => {
    const dir = tempDir()
    expect(cli(['migrate'], { DATA_DIR: dir }).code).toBe(0)
    const db = new Database(join(dir, 'promptlib.db'))
    const now = Date.now()
    db.run(`INSERT INTO users (id, email, name, tier, created_at, updated_at) VALUES ('u1', 'ada@example.com', 'Ada', 'pro', 1, 1)`)
    db.run(`INSERT INTO personal_access_tokens (id, user_id, name, token_hash, created_at, expires_at) VALUES ('tok1', 'u1', 'ci runner', 'h1', ?, ?)`, [now, now + 86_400_000])
    db.run(`INSERT INTO personal_access_tokens (id, user_id, name, token_hash, created_at, expires_at) VALUES ('tok2', 'u1', 'old', 'h2', ?, ?)`, [now - 10, now - 5])
    db.close()

    const list = cli(['user', 'tokens', 'ada@example.com'], { DATA_DIR: dir })
    expect(list.code).toBe(0)
    const lines = list.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^TOKEN_ID\s+NAME\s+STATE\s+CREATED_AT\s+EXPIRES_AT\s+LAST_USED_AT$/)
    expect(lines.find((l) => l.startsWith('tok1'))).toMatch(/ci runner\s+active/)
    expect(lines.find((l) => l.startsWith('tok2'))).toMatch(/old\s+expired/)
    expect(list.stdout).not.toContain('h1')

    const revoke = cli(['user', 'tokens', 'ada@example.com', '--revoke', 'tok1'], { DATA_DIR: dir })
    expect(revoke.code).toBe(0)
    expect(revoke.stdout).toContain('revoked token tok1')
    expect(cli(['user', 'tokens', 'ada@example.com'], { DATA_DIR: dir }).stdout).not.toContain('tok1')

    const again = cli(['user', 'tokens', 'ada@example.com', '--revoke', 'tok1'], { DATA_DIR: dir })
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('No such token')
    expect(cli(['user', 'tokens', 'ada@example.com', '--revoke'], { DATA_DIR: dir }).code).toBe(2)
    expect(cli(['user', 'tokens', 'nobody@example.com'], { DATA_DIR: dir }).code).toBe(1)
  })
})
