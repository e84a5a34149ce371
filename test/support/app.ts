// A real app on real storage — a SQLite file in a fresh temporary directory, or a fresh
// PostgreSQL database when the suite runs its PostgreSQL pass (test/support/postgres.ts) —
// driven through handle(new Request(...)) exactly as the server calls it for a client.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type App, createApp } from '../../src/app'
import { type Config, loadConfig } from '../../src/config'
import { openStorage } from '../../src/db'
import type { Storage } from '../../src/db/storage'
import { createMemoryLogger } from '../../src/log'
import { createdTempDirs } from './cleanup'
import { freshDatabaseUrl } from './postgres'

export { TEST_ENGINE } from './postgres'

export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret-0123456789'

/** argon2id with small costs: tests hash hundreds of passwords. Verification reads the cost from the hash. */
export const CHEAP_HASH = { memoryCost: 1024, timeCost: 1 }

export function tempDir(prefix = 'promptlib-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  createdTempDirs.push(dir)
  return dir
}

/**
 * The environment for a promptlib process (CLI or server) started by a test: its own data
 * directory, and on the PostgreSQL pass its own database.
 */
export async function processEnv(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const url = await freshDatabaseUrl()
  return { DATA_DIR: tempDir(), ...(url ? { DATABASE_URL: url } : {}), ...extra }
}

export interface TestApp {
  /** the Elysia app (tests may mount extra routes on it) */
  app: App['api']
  /** what the server calls for every request: the edge around the app */
  handle: App['handle']
  services: App['services']
  storage: Storage
  config: Config
  log: ReturnType<typeof createMemoryLogger>
  dataDir: string
  request(path: string, init?: RequestInit & { json?: unknown; token?: string }): Promise<Response>
}

export async function makeTestApp(
  env: Record<string, string> = {},
  overrides: Partial<Config> = {},
  { poolSize = 4 }: { poolSize?: number } = {},
): Promise<TestApp> {
  const dataDir = tempDir()
  const config: Config = {
    ...loadConfig({ DATA_DIR: dataDir, AUTH_RATE_LIMIT: '0', ...env }),
    databaseUrl: await freshDatabaseUrl(),
    passwordHash: CHEAP_HASH,
    ...overrides,
  }
  const { storage } = await openStorage(config, { poolSize })
  const log = createMemoryLogger('debug')
  const { api: app, handle, services } = createApp({ config, storage, log, jwtSecret: TEST_JWT_SECRET })
  return {
    app,
    handle,
    services,
    storage,
    config,
    log,
    dataDir,
    async request(path, init = {}) {
      const { json, token, ...rest } = init
      const headers = new Headers(rest.headers)
      if (json !== undefined) headers.set('content-type', 'application/json')
      if (token) headers.set('authorization', `Bearer ${token}`)
      return handle(
        new Request(`http://localhost${path}`, {
          ...rest,
          headers,
          body: json !== undefined ? JSON.stringify(json) : rest.body,
        }),
      )
    },
  }
}

let counter = 0
export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${Date.now().toString(36)}-${counter++}@example.com`
}

export const GOOD_PASSWORD = 'a sufficiently long passphrase'

export interface Registered {
  token: string
  user: { id: string; email: string; name: string; tier: string }
  email: string
  password: string
}

export async function register(t: TestApp, overrides: { email?: string; password?: string; name?: string; ip?: string } = {}): Promise<Registered> {
  const email = overrides.email ?? uniqueEmail()
  const password = overrides.password ?? GOOD_PASSWORD
  const res = await t.request('/api/auth/register', {
    method: 'POST',
    json: { email, password, name: overrides.name ?? 'Test User' },
    headers: overrides.ip ? { 'x-forwarded-for': overrides.ip } : {},
  })
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${await res.text()}`)
  const body = (await res.json()) as { access_token: string; user: Registered['user'] }
  return { token: body.access_token, user: body.user, email, password }
}

/** Sets a user's tier the way the CLI and payments do (through accounts). */
export async function setTier(t: TestApp, userId: string, tier: 'free' | 'starter' | 'pro' | 'lifetime'): Promise<void> {
  if (!(await t.services.accounts.setTier(userId, tier))) throw new Error(`no user ${userId}`)
}

/** The parsed JSON body, typed loosely for assertions. */
// biome-ignore lint: tests inspect arbitrary JSON
export const json = (res: Response): Promise<any> => res.json()

/** Asserts the contract's error shape and returns the body. */
/** What `t` logged at `level` after its first `before` lines (take t.log.lines().length before acting). */
export const loggedSince = (t: TestApp, before: number, level = 'error') =>
  t.log
    .lines()
    .slice(before)
    .filter((line) => line.level === level)

export async function problem(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  const text = await res.text()
  let body: Record<string, unknown>
  try {
    body = JSON.parse(text)
  } catch {
    throw new Error(`expected problem+json ${status} ${code}, got ${res.status}: ${text.slice(0, 300)}`)
  }
  if (res.status !== status || body.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(body).slice(0, 500)}`)
  }
  if (!res.headers.get('content-type')?.startsWith('application/problem+json')) {
    throw new Error(`expected application/problem+json, got ${res.headers.get('content-type')}`)
  }
  for (const key of ['type', 'title', 'status', 'code', 'detail']) {
    if (!(key in body)) throw new Error(`problem body lacks ${key}: ${text}`)
  }
  return body
}
