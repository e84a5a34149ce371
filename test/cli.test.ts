// The command line, run as a real process (contract section 11).
import { describe, expect, test } from 'bun:test'
import { cli, freePort, startServer } from './support/process'
import { processEnv, tempDir } from './support/app'
import { canMountTmpfs, withSmallDisk } from './support/disk'
import { emptyDatabaseUrl } from './support/postgres'
import { sqlRun, withStorage } from './support/sql'
import { join } from 'node:path'
import { existsSync, writeFileSync } from 'node:fs'

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

  test('migrate creates the schema and is idempotent', async () => {
    const dir = tempDir()
    const url = await emptyDatabaseUrl()
    const env = { DATA_DIR: dir, ...(url ? { DATABASE_URL: url } : {}) }
    const first = cli(['migrate'], env)
    expect(first.code).toBe(0)
    expect(first.stdout).toContain('applied 0000_init')
    if (!url) expect(existsSync(join(dir, 'promptlib.db'))).toBe(true)
    expect(cli(['migrate'], env).stdout).toContain('up to date')
  })

  test('a command given arguments it does not take, or asked for help, prints its usage (exit 2) and creates no database', () => {
    for (const args of [
      ['migrate', 'extra'],
      ['migrate', '--help'],
      ['user', '--help'],
      ['user'],
      ['user', 'list', 'x'],
      ['user', 'set-tier', 'a@b.c', 'gold'],
    ]) {
      const dir = join(tempDir(), 'fresh')
      const r = cli(args, { DATA_DIR: dir })
      expect({ args, code: r.code, usage: r.stderr.includes('promptlib ') || r.stderr.includes('unknown tier') }).toEqual({
        args,
        code: 2,
        usage: true,
      })
      expect({ args, created: existsSync(dir) }).toEqual({ args, created: false })
    }
  })

  test('a database migrated by a newer promptlib is refused by every command (exit 1, one line), not served', async () => {
    const env = await processEnv()
    expect(cli(['migrate'], env).code).toBe(0)
    // What a newer version leaves: a migration dated after every one this build knows.
    const table = env.DATABASE_URL ? 'drizzle.__drizzle_migrations' : '__drizzle_migrations'
    await withStorage(env, (storage) =>
      sqlRun(storage, `INSERT INTO ${table} (hash, created_at) VALUES ('from-a-newer-version', $1)`, [Date.parse('2099-01-01')]),
    )
    for (const args of [['migrate'], ['serve'], ['user', 'list']]) {
      const r = cli(args, { ...env, PORT: String(freePort()) })
      expect({ args, code: r.code }).toEqual({ args, code: 1 })
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringContaining('migrated by a newer promptlib (its last migration is from 2099-01-01')])
    }
  })

  test('healthcheck: 0 when the server on PORT answers, 1 with one line when nothing does', async () => {
    const server = await startServer(await processEnv())
    const port = new URL(server.url).port
    expect(cli(['healthcheck'], { PORT: port, HOST: '0.0.0.0' }).code).toBe(0)
    server.kill()
    await server.exited
    const down = cli(['healthcheck'], { PORT: port })
    expect(down.code).toBe(1)
    expect(down.stderr.trim().split('\n')).toEqual([expect.stringContaining('did not answer')])
  })

  test('an unreachable PostgreSQL stops any command with one line', async () => {
    const r = cli(['user', 'list'], { DATA_DIR: tempDir(), DATABASE_URL: `postgres://nobody:secret-password@127.0.0.1:${freePort()}/promptlib` })
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringContaining('cannot reach PostgreSQL at postgres://nobody:***@127.0.0.1')])
    expect(r.stderr).not.toContain('secret-password')
  })

  test('serve on a port another process holds stops with one line, not a stack', async () => {
    const server = await startServer(await processEnv())
    const r = cli(['serve'], { ...(await processEnv()), PORT: new URL(server.url).port, HOST: '127.0.0.1', DEMO_CATALOGUE: 'false' })
    server.kill()
    await server.exited
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^promptlib: .*PORT: .*in use.*\(EADDRINUSE\)$/)])
  })

  test('serve on a HOST that is no address here (a name that does not resolve) names HOST', async () => {
    const r = cli(['serve'], { ...(await processEnv()), PORT: '0', HOST: 'nonexistent.invalid', DEMO_CATALOGUE: 'false' })
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^promptlib: invalid configuration: HOST: cannot listen on "nonexistent.invalid"/),
    ])
  })

  // A full disk in the second of two files: the first file's summary was never printed, though it was committed.
  test.skipIf(!canMountTmpfs)(
    'import of several files on a disk that fills: the files before say what they did, the failing one is named',
    () =>
      withSmallDisk('3m', (disk) => {
        const env = { DATA_DIR: join(disk, 'data'), DEMO_CATALOGUE: 'false' }
        const files = tempDir()
        const csv = (rows: number, size: number) =>
          `act,prompt\n${Array.from({ length: rows }, (_, i) => `"Prompt ${i}","${`${i} `.repeat(size)}"`).join('\n')}\n`
        writeFileSync(join(files, 'small.csv'), csv(50, 10))
        writeFileSync(join(files, 'big.csv'), csv(20_000, 100))
        const r = cli(['import', join(files, 'small.csv'), join(files, 'big.csv')], env)
        expect(r.code).toBe(1)
        expect(r.stdout).toContain('small.csv: 50 added')
        expect(r.stderr).toContain('big.csv: not imported (rolled back)')
        expect(r.stderr).toMatch(/full/)
      }),
    60_000,
  )

  test('user list and user set-tier', async () => {
    const env = await processEnv()
    expect(cli(['migrate'], env).code).toBe(0)
    await withStorage(env, (storage) =>
      sqlRun(storage, `INSERT INTO users (id, email, name, tier, created_at, updated_at) VALUES ('u1', 'ada@example.com', 'Ada', 'free', $1, $1)`, [
        new Date(1),
      ]),
    )

    const set = cli(['user', 'set-tier', 'ADA@example.com', 'pro'], env)
    expect(set.code).toBe(0)
    expect(set.stdout).toContain('ada@example.com is now on the pro tier')

    const list = cli(['user', 'list'], env)
    expect(list.code).toBe(0)
    const [header, row] = list.stdout.trim().split('\n')
    expect(header).toMatch(/^ID\s+EMAIL\s+NAME\s+TIER\s+CREATED_AT$/)
    expect(row).toMatch(/^u1\s+ada@example\.com\s+Ada\s+pro\s+1970-01-01T00:00:00\.001Z$/)
  })

  test('set-tier refuses unknown tiers and unknown users', async () => {
    const env = await processEnv()
    const badTier = cli(['user', 'set-tier', 'ada@example.com', 'gold'], env)
    expect(badTier.code).toBe(2)
    expect(badTier.stderr).toContain('unknown tier "gold"')
    const nobody = cli(['user', 'set-tier', 'nobody@example.com', 'pro'], env)
    expect(nobody.code).toBe(1)
    expect(nobody.stderr).toContain('no user with e-mail nobody@example.com')
    expect(cli(['user', 'set-tier', 'only-one-arg'], env).code).toBe(2)
  })

  test('user tokens lists a user’s tokens and --revoke revokes one', async () => {
    const env = await processEnv()
    expect(cli(['migrate'], env).code).toBe(0)
    const now = Date.now()
    await withStorage(env, async (storage) => {
      await sqlRun(
        storage,
        `INSERT INTO users (id, email, name, tier, created_at, updated_at) VALUES ('u1', 'ada@example.com', 'Ada', 'pro', $1, $1)`,
        [new Date(1)],
      )
      const token = `INSERT INTO personal_access_tokens (id, user_id, name, token_hash, created_at, expires_at) VALUES ($1, 'u1', $2, $3, $4, $5)`
      await sqlRun(storage, token, ['tok1', 'ci runner', 'h1', new Date(now), new Date(now + 86_400_000)])
      await sqlRun(storage, token, ['tok2', 'old', 'h2', new Date(now - 10), new Date(now - 5)])
    })

    const list = cli(['user', 'tokens', 'ada@example.com'], env)
    expect(list.code).toBe(0)
    const lines = list.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^TOKEN_ID\s+NAME\s+STATE\s+CREATED_AT\s+EXPIRES_AT\s+LAST_USED_AT$/)
    expect(lines.find((l) => l.startsWith('tok1'))).toMatch(/ci runner\s+active/)
    expect(lines.find((l) => l.startsWith('tok2'))).toMatch(/old\s+expired/)
    expect(list.stdout).not.toContain('h1')

    const revoke = cli(['user', 'tokens', 'ada@example.com', '--revoke', 'tok1'], env)
    expect(revoke.code).toBe(0)
    expect(revoke.stdout).toContain('revoked token tok1')
    expect(cli(['user', 'tokens', 'ada@example.com'], env).stdout).not.toContain('tok1')

    const again = cli(['user', 'tokens', 'ada@example.com', '--revoke', 'tok1'], env)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('No such token')
    expect(cli(['user', 'tokens', 'ada@example.com', '--revoke'], env).code).toBe(2)
    expect(cli(['user', 'tokens', 'nobody@example.com'], env).code).toBe(1)
  })
})
