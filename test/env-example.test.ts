// .env.example lists every variable of the contract (section 10), and its values load.
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig } from '../src/config'

const CONTRACT_VARIABLES = [
  'PORT',
  'HOST',
  'DATA_DIR',
  'PUBLIC_URL',
  'FRONTEND_URL',
  'JWT_SECRET',
  'CORS_ORIGINS',
  'TRUST_PROXY',
  'LOG_LEVEL',
  'DATABASE_URL',
  'DEMO_CATALOGUE',
  'AUTH_RATE_LIMIT',
  ...['A', 'B'].flatMap((p) =>
    ['CLIENT_ID', 'CLIENT_SECRET', 'AUTHORIZE_URL', 'TOKEN_URL', 'USERINFO_URL', 'EMAILS_URL'].map((k) => `OAUTH_${p}_${k}`),
  ),
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'STRIPE_PRICE_STARTER',
  'STRIPE_PRICE_PRO',
  'STRIPE_PRICE_LIFETIME',
  'STRIPE_API_BASE',
  'PAYPAL_CLIENT_ID',
  'PAYPAL_CLIENT_SECRET',
  'PAYPAL_WEBHOOK_ID',
  'PAYPAL_API_BASE',
  'PAYPAL_PLAN_STARTER',
  'PAYPAL_PLAN_PRO',
  'PAYPAL_CERT_URL_PREFIXES',
  'LIFETIME_PRICE',
  'CURRENCY',
  'OPTIMIZER_BASE_URL',
  'OPTIMIZER_API_KEY',
  'OPTIMIZER_MODEL',
  'SMTP_URL',
  'MAIL_FROM',
  // beyond the contract: the OpenAI-compatible engine's timeouts (README, "Optimizer")
  'OPTIMIZER_CONNECT_TIMEOUT_MS',
  'OPTIMIZER_IDLE_TIMEOUT_MS',
  // beyond the contract: the e-mail outbox worker (docs/payments.md)
  'MAIL_SEND_TIMEOUT_MS',
  'MAIL_RETRY_BASE_MS',
  'MAIL_MAX_ATTEMPTS',
  'MAIL_POLL_MS',
  // beyond the contract: SQLite's lock wait and durability (README, "Durability")
  'SQLITE_LOCK_TIMEOUT_MS',
  'SQLITE_SYNCHRONOUS',
  // beyond the contract: the scopes a provider slot asks for (README, "Sign-in through providers")
  'OAUTH_A_SCOPES',
  'OAUTH_B_SCOPES',
]

test('.env.example names every contract variable, and its values are valid', () => {
  const text = readFileSync(join(import.meta.dir, '..', '.env.example'), 'utf8')
  const env = Object.fromEntries(
    text
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  )
  expect(Object.keys(env).sort()).toEqual([...CONTRACT_VARIABLES].sort())
  expect(() => loadConfig(env)).not.toThrow()
})
