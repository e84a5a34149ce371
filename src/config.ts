// Configuration: read from the environment once at start-up, validated, typed.
// A bad value throws ConfigError naming the variable; main.ts prints it as one line and exits.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import { isIP, isIPv6 } from 'node:net'

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

export interface OAuthProviderConfig {
  clientId: string
  clientSecret: string
  authorizeUrl?: string
  tokenUrl?: string
  userinfoUrl?: string
  emailsUrl?: string
  /** OAUTH_{A,B}_SCOPES; unset = the preset's */
  scopes?: string[]
}

export interface OptimizerUpstreamConfig {
  baseUrl: string
  apiKey?: string
  model: string
  /** from the request until the upstream's response headers */
  connectTimeoutMs: number
  /** longest silence allowed between two pieces of the upstream's stream */
  idleTimeoutMs: number
}

export interface Config {
  port: number
  host: string
  dataDir: string
  /** postgres://… when the process runs on PostgreSQL; null = SQLite in dataDir */
  databaseUrl: string | null
  publicUrl: string
  frontendUrl: string
  /** null until resolveJwtSecret() has run (it may create a file in dataDir) */
  jwtSecret: string | null
  corsOrigins: string[]
  trustProxy: boolean
  logLevel: LogLevel
  demoCatalogue: boolean
  /** login + register attempts per minute per client address; 0 = off */
  authRateLimit: number
  oauth: { a: OAuthProviderConfig | null; b: OAuthProviderConfig | null }
  /** the longest a sign-in callback waits on its provider, all calls together (not from the environment; tests shorten it) */
  oauthTimeoutMs: number
  stripe: {
    secretKey: string
    webhookSecret: string
    prices: { starter?: string; pro?: string; lifetime?: string }
    apiBase?: string
  } | null
  paypal: {
    clientId: string
    clientSecret: string
    webhookId?: string
    apiBase: string
    plans: { starter?: string; pro?: string }
    certUrlPrefixes: string[]
  } | null
  lifetimePrice: string
  currency: string
  optimizer: OptimizerUpstreamConfig | null
  /** optimizer stream knobs (not from the environment); tests shorten them */
  optimizerStream: { pingIntervalMs: number; maxOpenStreamsPerUser: number; maxStreamMs: number }
  smtp: { url: string; from: string } | null
  /** the e-mail outbox worker (features/mail) */
  mailOutbox: {
    /** SMTP connection, greeting and socket timeouts; a send is abandoned after twice this, a claimed message's lease lasts three times it */
    sendTimeoutMs: number
    /** the first retry waits this long, each further one twice as long (at most an hour) */
    retryBaseMs: number
    /** attempts before a message is given up (status failed) */
    maxAttempts: number
    /** how often each instance looks for due messages (its own are sent at once) */
    pollMs: number
  }
  sqlite: {
    /** how long a command (the server's start included) waits for another process's lock */
    lockTimeoutMs: number
    /** normal: a commit survives a killed process; full: also a power cut (README, "Durability") */
    synchronous: 'normal' | 'full'
  }
  /** argon2id cost; tests lower it, production keeps Bun's defaults */
  passwordHash: { memoryCost?: number; timeCost?: number }
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`)
  }
}

type Env = Record<string, string | undefined>

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim()
  return value === '' ? undefined : value
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name)
  if (raw === undefined) return fallback
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got "${raw}")`)
  const value = Number(raw)
  if (value < min || value > max) throw new ConfigError(name, `must be from ${min} to ${max} (got ${raw})`)
  return value
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name)?.toLowerCase()
  if (raw === undefined) return fallback
  if (['true', '1', 'yes', 'on'].includes(raw)) return true
  if (['false', '0', 'no', 'off'].includes(raw)) return false
  throw new ConfigError(name, `must be true or false (got "${raw}")`)
}

function url(env: Env, name: string, fallback?: string): string | undefined {
  const raw = read(env, name) ?? fallback
  if (raw === undefined) return undefined
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL (got "${raw}")`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(name, `must use http or https (got "${parsed.protocol}")`)
  }
  return raw.replace(/\/+$/, '')
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = read(env, name)?.toLowerCase()
  if (raw === undefined) return fallback
  if (!allowed.includes(raw as T)) throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${raw}")`)
  return raw as T
}

/** Both or neither: a half-configured provider is a mistake worth stopping for. */
function pair(env: Env, a: string, b: string): [string, string] | null {
  const x = read(env, a)
  const y = read(env, b)
  if (x === undefined && y === undefined) return null
  if (x === undefined) throw new ConfigError(a, `must be set when ${b} is set`)
  if (y === undefined) throw new ConfigError(b, `must be set when ${a} is set`)
  return [x, y]
}

/** Space- or comma-separated OAuth scopes, e.g. "openid email profile". */
function scopes(env: Env, name: string): string[] | undefined {
  const raw = read(env, name)
  if (raw === undefined) return undefined
  const list = raw.split(/[\s,]+/).filter(Boolean)
  if (list.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) throw new ConfigError(name, `must be scope names separated by spaces (got "${raw}")`)
  return list
}

function oauthProvider(env: Env, letter: 'A' | 'B'): OAuthProviderConfig | null {
  const p = `OAUTH_${letter}_`
  // Checked even while the provider is off: a bad value set now would only surface when it is turned on.
  const settings = {
    authorizeUrl: url(env, `${p}AUTHORIZE_URL`),
    tokenUrl: url(env, `${p}TOKEN_URL`),
    userinfoUrl: url(env, `${p}USERINFO_URL`),
    emailsUrl: url(env, `${p}EMAILS_URL`),
    scopes: scopes(env, `${p}SCOPES`),
  }
  const creds = pair(env, `${p}CLIENT_ID`, `${p}CLIENT_SECRET`)
  if (!creds) return null
  return { clientId: creds[0], clientSecret: creds[1], ...settings }
}

/**
 * An address to listen on: an IPv4 or IPv6 address (a zone allowed: fe80::1%eth0) or a host name.
 * Checked here, where the message can name the variable: the system's own refusal of, say,
 * 999.1.1.1 is "EINVAL: invalid argument, listen", naming nothing.
 */
function listenHost(env: Env): string {
  const raw = read(env, 'HOST')
  if (raw === undefined) return '0.0.0.0'
  const hostName = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\.?$/
  const ok = isIP(raw) !== 0 || isIPv6(raw.replace(/%[\w.-]+$/, '')) || (hostName.test(raw) && !/^[\d.]+$/.test(raw))
  if (!ok) throw new ConfigError('HOST', `must be an IP address or a host name to listen on, such as 0.0.0.0, :: or 127.0.0.1 (got "${raw}")`)
  return raw
}

/** postgres:// or postgresql:// with a host; anything else is a typo worth stopping for. */
/**
 * A URL that its driver (postgres.js, nodemailer) reads again on its own, checked here so that a
 * bad one stops start-up naming its variable instead of failing later with a stack trace that
 * prints it, password included: a scheme among `protocols`, a host name, and user, password and
 * path whose %-escapes decode. The reason it is refused, or null; never the URL itself.
 */
export function serviceUrlProblem(raw: string, protocols: readonly string[]): string | null {
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    return 'is not a URL (a port past 65535, an unclosed [ or a space?)'
  }
  if (!protocols.includes(parsed.protocol)) return `must start with ${protocols.map((p) => `${p}//`).join(' or ')}`
  if (!/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)$/.test(parsed.hostname))
    return 'needs a host name (letters, digits, dots and hyphens, or [an IPv6 address])'
  try {
    for (const part of [parsed.username, parsed.password, parsed.pathname]) decodeURIComponent(part)
  } catch {
    return 'has a % that starts no escape in its user, password or path (write a literal % as %25)'
  }
  return null
}

function databaseUrl(env: Env): string | null {
  const raw = read(env, 'DATABASE_URL')
  if (raw === undefined) return null
  const problem = serviceUrlProblem(raw, ['postgres:', 'postgresql:'])
  if (problem)
    throw new ConfigError(
      'DATABASE_URL',
      `${problem}: a PostgreSQL URL such as postgres://user:password@host:5432/promptlib (unset it to use SQLite)`,
    )
  return raw
}

const PAYPAL_LIVE = 'https://api-m.paypal.com'
const PAYPAL_SANDBOX = 'https://api-m.sandbox.paypal.com'

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8000, 0, 65535)
  const publicUrl = url(env, 'PUBLIC_URL', 'http://localhost:8000')!
  const jwtSecret = read(env, 'JWT_SECRET') ?? null
  if (jwtSecret !== null && Buffer.byteLength(jwtSecret) < 32) {
    throw new ConfigError('JWT_SECRET', 'must be at least 32 bytes long')
  }
  const lifetimePrice = read(env, 'LIFETIME_PRICE') ?? '199.00'
  if (!/^\d+\.\d{2}$/.test(lifetimePrice)) {
    throw new ConfigError('LIFETIME_PRICE', `must look like 199.00 (got "${lifetimePrice}")`)
  }
  const currency = (read(env, 'CURRENCY') ?? 'USD').toUpperCase()
  if (!/^[A-Z]{3}$/.test(currency)) throw new ConfigError('CURRENCY', `must be a three-letter ISO 4217 code (got "${currency}")`)

  // Each as a browser sends it in Origin (lower-case scheme and host, no default port), so that
  // https://App.example.com:443 matches what https://app.example.com's pages send.
  const corsOrigins = (read(env, 'CORS_ORIGINS') ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
    .map((origin) => {
      if (origin === '*') return origin
      const refused = () => new ConfigError('CORS_ORIGINS', `"${origin}" is not an origin like https://app.example.com`)
      if (!/^https?:\/\/[^/\s]+$/i.test(origin)) throw refused()
      try {
        return new URL(origin).origin
      } catch {
        throw refused()
      }
    })

  const stripeKeys = pair(env, 'STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET')
  const stripeApiBase = url(env, 'STRIPE_API_BASE')
  const paypalKeys = pair(env, 'PAYPAL_CLIENT_ID', 'PAYPAL_CLIENT_SECRET')
  const optimizerBase = url(env, 'OPTIMIZER_BASE_URL')
  // Checked even without a base URL: a typo should not wait for the day the engine is switched on.
  const optimizerTimeouts = {
    connectTimeoutMs: integer(env, 'OPTIMIZER_CONNECT_TIMEOUT_MS', 10_000, 1, 600_000),
    idleTimeoutMs: integer(env, 'OPTIMIZER_IDLE_TIMEOUT_MS', 30_000, 1, 600_000),
  }
  // Checked even without PayPal credentials, like the optimizer's timeouts.
  const certUrlPrefixes = (read(env, 'PAYPAL_CERT_URL_PREFIXES') ?? `${PAYPAL_LIVE}/,${PAYPAL_SANDBOX}/`)
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
  for (const prefix of certUrlPrefixes) {
    if (!/^https?:\/\/[^/\s]+\/\S*$/.test(prefix)) {
      throw new ConfigError(
        'PAYPAL_CERT_URL_PREFIXES',
        `"${prefix}" is not a URL prefix like https://api-m.paypal.com/ (scheme, host and a path ending the host)`,
      )
    }
  }
  // Checked even while PayPal is off, like every URL setting.
  const paypalApiBase = url(env, 'PAYPAL_API_BASE', PAYPAL_LIVE)!
  const smtpUrl = read(env, 'SMTP_URL')
  const smtpProblem = smtpUrl === undefined ? null : serviceUrlProblem(smtpUrl, ['smtp:', 'smtps:'])
  if (smtpProblem) throw new ConfigError('SMTP_URL', `${smtpProblem}: such as smtp://user:password@mail.example.com:587`)

  return {
    port,
    host: listenHost(env),
    dataDir: resolve(read(env, 'DATA_DIR') ?? './data'),
    databaseUrl: databaseUrl(env),
    publicUrl,
    frontendUrl: url(env, 'FRONTEND_URL') ?? publicUrl,
    jwtSecret,
    corsOrigins,
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    logLevel: oneOf(env, 'LOG_LEVEL', ['debug', 'info', 'warn', 'error'] as const, 'info'),
    demoCatalogue: boolean(env, 'DEMO_CATALOGUE', true),
    authRateLimit: integer(env, 'AUTH_RATE_LIMIT', 10, 0, 1_000_000),
    oauth: { a: oauthProvider(env, 'A'), b: oauthProvider(env, 'B') },
    oauthTimeoutMs: 10_000,
    stripe: stripeKeys && {
      secretKey: stripeKeys[0],
      webhookSecret: stripeKeys[1],
      prices: {
        starter: read(env, 'STRIPE_PRICE_STARTER'),
        pro: read(env, 'STRIPE_PRICE_PRO'),
        lifetime: read(env, 'STRIPE_PRICE_LIFETIME'),
      },
      apiBase: stripeApiBase,
    },
    paypal: paypalKeys && {
      clientId: paypalKeys[0],
      clientSecret: paypalKeys[1],
      webhookId: read(env, 'PAYPAL_WEBHOOK_ID'),
      apiBase: paypalApiBase,
      plans: { starter: read(env, 'PAYPAL_PLAN_STARTER'), pro: read(env, 'PAYPAL_PLAN_PRO') },
      certUrlPrefixes,
    },
    lifetimePrice,
    currency,
    optimizer: optimizerBase
      ? {
          baseUrl: optimizerBase,
          apiKey: read(env, 'OPTIMIZER_API_KEY'),
          model: read(env, 'OPTIMIZER_MODEL') ?? 'gpt-4o-mini',
          ...optimizerTimeouts,
        }
      : null,
    // contract: a ping every 15 s while waiting; 3 open streams per user; no stream beyond 10 min
    optimizerStream: { pingIntervalMs: 15_000, maxOpenStreamsPerUser: 3, maxStreamMs: 10 * 60_000 },
    sqlite: {
      // 30 s: the longest lock we expect is one import file's transaction (a whole import of
      // 100,000 prompts takes 12–14 s, README "Benchmarks"); a stuck process is still reported
      // within half a minute.
      lockTimeoutMs: integer(env, 'SQLITE_LOCK_TIMEOUT_MS', 30_000, 0, 3_600_000),
      synchronous: oneOf(env, 'SQLITE_SYNCHRONOUS', ['normal', 'full'] as const, 'normal'),
    },
    smtp: smtpUrl ? { url: smtpUrl, from: read(env, 'MAIL_FROM') ?? 'promptlib <noreply@localhost>' } : null,
    mailOutbox: {
      sendTimeoutMs: integer(env, 'MAIL_SEND_TIMEOUT_MS', 30_000, 100, 600_000),
      retryBaseMs: integer(env, 'MAIL_RETRY_BASE_MS', 30_000, 10, 3_600_000),
      maxAttempts: integer(env, 'MAIL_MAX_ATTEMPTS', 10, 1, 100),
      pollMs: integer(env, 'MAIL_POLL_MS', 5_000, 10, 3_600_000),
    },
    passwordHash: {},
  }
}

export const JWT_SECRET_FILE = 'jwt-secret'

/**
 * Without JWT_SECRET, a random secret is generated once and kept in DATA_DIR (mode 0600),
 * so tokens survive restarts. Returns the secret and whether it was just generated.
 */
export function resolveJwtSecret(config: Config): { secret: string; source: 'env' | 'file' | 'generated' } {
  if (config.jwtSecret) return { secret: config.jwtSecret, source: 'env' }
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 })
  const file = join(config.dataDir, JWT_SECRET_FILE)
  const kept = (): { secret: string; source: 'file' } => {
    let secret = ''
    // Another process starting at the same moment may have created the file and not yet written it.
    for (let attempt = 0; attempt < 10; attempt++) {
      if (attempt > 0) Bun.sleepSync(25)
      try {
        secret = readFileSync(file, 'utf8').trim()
      } catch (error) {
        throw new ConfigError(
          'JWT_SECRET',
          `cannot read the generated secret in ${file} (${(error as Error).message}); fix or delete it, or set JWT_SECRET`,
        )
      }
      if (Buffer.byteLength(secret) >= 32) break
    }
    if (Buffer.byteLength(secret) < 32) throw new ConfigError('JWT_SECRET', `the generated secret in ${file} is damaged; delete it or set JWT_SECRET`)
    return { secret, source: 'file' }
  }
  if (existsSync(file)) return kept()
  const secret = randomBytes(48).toString('base64url')
  // 'wx' fails if another process created the file in between; then use theirs.
  try {
    writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' })
    chmodSync(file, 0o600)
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EEXIST') {
      throw new ConfigError(
        'JWT_SECRET',
        `cannot keep a generated secret in ${file} (${(error as Error).message}); check DATA_DIR, or set JWT_SECRET`,
      )
    }
    return kept()
  }
  return { secret, source: 'generated' }
}
