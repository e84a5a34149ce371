import { describe, expect, test } from 'bun:test'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError, loadConfig, resolveJwtSecret } from '../src/config'
import { tempDir } from './support/app'

describe('loadConfig', () => {
  test('embedded defaults', () => {
    const c = loadConfig({})
    expect(c).toMatchObject({
      port: 8000,
      host: '0.0.0.0',
      publicUrl: 'http://localhost:8000',
      frontendUrl: 'http://localhost:8000',
      jwtSecret: null,
      corsOrigins: [],
      trustProxy: false,
      logLevel: 'info',
      demoCatalogue: true,
      authRateLimit: 10,
      oauth: { a: null, b: null },
      stripe: null,
      paypal: null,
      lifetimePrice: '199.00',
      currency: 'USD',
      optimizer: null,
      smtp: null,
      mailOutbox: { sendTimeoutMs: 30_000, retryBaseMs: 30_000, maxAttempts: 10, pollMs: 5_000 },
      sqlite: { lockTimeoutMs: 30_000, synchronous: 'normal' },
    })
    expect(c.dataDir).toEndWith('/data')
  })

  test.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['TRUST_PROXY', 'maybe'],
    ['LOG_LEVEL', 'verbose'],
    ['AUTH_RATE_LIMIT', '-1'],
    ['JWT_SECRET', 'too-short'],
    ['PUBLIC_URL', 'not a url'],
    ['FRONTEND_URL', 'ftp://example.com'],
    ['CORS_ORIGINS', 'https://ok.example.com,not an origin'],
    ['LIFETIME_PRICE', '199'],
    ['CURRENCY', 'dollars'],
    ['OPTIMIZER_BASE_URL', 'localhost:9999'],
    ['OPTIMIZER_CONNECT_TIMEOUT_MS', '0'],
    ['OPTIMIZER_IDLE_TIMEOUT_MS', '30s'],
    ['SMTP_URL', 'http://mail.example.com'],
    ['MAIL_SEND_TIMEOUT_MS', '30s'],
    ['MAIL_RETRY_BASE_MS', '0'],
    ['MAIL_MAX_ATTEMPTS', '0'],
    ['MAIL_POLL_MS', '-5'],
    ['STRIPE_API_BASE', 'stripe.local'],
    ['PAYPAL_CERT_URL_PREFIXES', 'not a url'],
    ['SQLITE_LOCK_TIMEOUT_MS', '30s'],
    ['SQLITE_LOCK_TIMEOUT_MS', '3600001'],
    ['SQLITE_SYNCHRONOUS', 'off'],
    ['DATABASE_URL', 'mysql://db/promptlib'],
    ['DATABASE_URL', 'postgres://'],
    ['DATABASE_URL', 'promptlib.db'],
    // Read again by their drivers, which failed later with a stack trace that printed them, password included.
    ['SMTP_URL', 'smtp://user:SECRETPW@bad%host:25'],
    ['SMTP_URL', 'smtp://user:SECRETPW@[::1:25'],
    ['SMTP_URL', 'smtp://'],
    ['SMTP_URL', 'smtp://mail.example.com:99999'],
    ['DATABASE_URL', 'postgres://app:p%SECRETPW@127.0.0.1:5432/promptlib'],
    ['DATABASE_URL', 'postgres://app:SECRETPW@/promptlib'],
  ])('a bad %s names the variable', (name, value) => {
    let error: unknown
    try {
      loadConfig({ [name]: value })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).variable).toBe(name)
    expect((error as Error).message).toStartWith(`${name}: `)
    expect((error as Error).message).not.toContain('SECRETPW')
  })

  test('DATABASE_URL: unset means SQLite; postgres:// and postgresql:// are PostgreSQL', () => {
    expect(loadConfig({}).databaseUrl).toBeNull()
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/promptlib' }).databaseUrl).toBe('postgres://u:p@db:5432/promptlib')
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/promptlib?sslmode=require' }).databaseUrl).toBe('postgresql://db/promptlib?sslmode=require')
  })

  test('half a provider is an error naming the missing half', () => {
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'sk_test_x' })).toThrow('STRIPE_WEBHOOK_SECRET')
    expect(() => loadConfig({ OAUTH_B_CLIENT_SECRET: 's' })).toThrow('OAUTH_B_CLIENT_ID')
  })

  test('a provider URL that is no URL is refused, naming it, even while that provider is off', () => {
    for (const name of ['OAUTH_A_AUTHORIZE_URL', 'OAUTH_B_TOKEN_URL', 'OAUTH_A_USERINFO_URL', 'OAUTH_B_EMAILS_URL', 'PAYPAL_API_BASE'])
      expect(() => loadConfig({ [name]: 'nope' }), name).toThrow(name)
    expect(loadConfig({ OAUTH_A_AUTHORIZE_URL: 'https://example.com/authorize' }).oauth.a).toBeNull()
  })

  test('providers are read when configured', () => {
    const c = loadConfig({
      OAUTH_A_CLIENT_ID: 'id',
      OAUTH_A_CLIENT_SECRET: 'secret',
      OAUTH_A_TOKEN_URL: 'http://127.0.0.1:9000/token/',
      PAYPAL_CLIENT_ID: 'p',
      PAYPAL_CLIENT_SECRET: 'q',
      OPTIMIZER_BASE_URL: 'http://127.0.0.1:9999/v1',
      CORS_ORIGINS: 'https://a.example.com, https://b.example.com',
    })
    expect(c.oauth.a).toMatchObject({ clientId: 'id', tokenUrl: 'http://127.0.0.1:9000/token', scopes: undefined })
    const b = { OAUTH_B_CLIENT_ID: 'i', OAUTH_B_CLIENT_SECRET: 's' }
    expect(loadConfig({ ...b, OAUTH_B_SCOPES: ' openid, email  profile ' }).oauth.b?.scopes).toEqual(['openid', 'email', 'profile'])
    expect(() => loadConfig({ ...b, OAUTH_B_SCOPES: 'openid "email"' })).toThrow('OAUTH_B_SCOPES: ')
    expect(c.paypal?.certUrlPrefixes).toEqual(['https://api-m.paypal.com/', 'https://api-m.sandbox.paypal.com/'])
    expect(c.corsOrigins).toEqual(['https://a.example.com', 'https://b.example.com'])
    // As a browser sends them in Origin: lower case, no default port (else they could never match).
    expect(loadConfig({ CORS_ORIGINS: 'https://App.Example.com:443, HTTP://x.test:80, http://x.test:8080, *' }).corsOrigins).toEqual([
      'https://app.example.com',
      'http://x.test',
      'http://x.test:8080',
      '*',
    ])
    expect(() => loadConfig({ CORS_ORIGINS: 'https://[::1' })).toThrow('CORS_ORIGINS: ')
    expect(c.optimizer).toEqual({
      baseUrl: 'http://127.0.0.1:9999/v1',
      apiKey: undefined,
      model: 'gpt-4o-mini',
      connectTimeoutMs: 10_000,
      idleTimeoutMs: 30_000,
    })
    expect(c.corsOrigins).toEqual(['https://a.example.com', 'https://b.example.com'])
  })

  test('payments and the e-mail outbox', () => {
    const c = loadConfig({
      STRIPE_SECRET_KEY: 'sk_test_x',
      STRIPE_WEBHOOK_SECRET: 'whsec_x',
      STRIPE_PRICE_PRO: 'price_pro',
      STRIPE_API_BASE: 'http://127.0.0.1:12111/',
      PAYPAL_CERT_URL_PREFIXES: 'http://127.0.0.1:9/certs/, https://api-m.paypal.com/',
      SMTP_URL: 'smtp://127.0.0.1:2525',
      MAIL_RETRY_BASE_MS: '50',
      MAIL_MAX_ATTEMPTS: '3',
    })
    expect(c.stripe).toEqual({ secretKey: 'sk_test_x', webhookSecret: 'whsec_x', prices: { pro: 'price_pro' }, apiBase: 'http://127.0.0.1:12111' })
    expect(c.smtp).toEqual({ url: 'smtp://127.0.0.1:2525', from: 'promptlib <noreply@localhost>' })
    expect(c.mailOutbox).toEqual({ sendTimeoutMs: 30_000, retryBaseMs: 50, maxAttempts: 3, pollMs: 5_000 })
    expect(() => loadConfig({ PAYPAL_CERT_URL_PREFIXES: 'https://api-m.paypal.com' })).toThrow('PAYPAL_CERT_URL_PREFIXES')
  })

  test('SQLite lock wait and durability', () => {
    expect(loadConfig({ SQLITE_LOCK_TIMEOUT_MS: '0', SQLITE_SYNCHRONOUS: 'FULL' }).sqlite).toEqual({ lockTimeoutMs: 0, synchronous: 'full' })
  })
})

describe('resolveJwtSecret', () => {
  test('without JWT_SECRET: generated once, mode 0600, reused after a restart', () => {
    const dir = join(tempDir(), 'nested', 'data')
    const config = loadConfig({ DATA_DIR: dir })
    const first = resolveJwtSecret(config)
    expect(first.source).toBe('generated')
    expect(first.secret.length).toBeGreaterThanOrEqual(32)
    expect(statSync(join(dir, 'jwt-secret')).mode & 0o777).toBe(0o600)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    const second = resolveJwtSecret(loadConfig({ DATA_DIR: dir }))
    expect(second).toEqual({ secret: first.secret, source: 'file' })
  })

  test('JWT_SECRET wins and writes nothing', () => {
    const dir = tempDir()
    const secret = 's'.repeat(40)
    expect(resolveJwtSecret(loadConfig({ DATA_DIR: dir, JWT_SECRET: secret }))).toEqual({ secret, source: 'env' })
    expect(() => statSync(join(dir, 'jwt-secret'))).toThrow()
  })
})
