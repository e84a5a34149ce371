// A hostile client against identity (contract sections 3 and 4): e-mail spellings the API cannot
// answer with, Unicode tricks in e-mails and passwords, OAuth codes moved between flows and
// providers, duplicated callback parameters, the login timing of accounts without a password,
// and the auth rate limit of a real server under spoofed addresses and a concurrent burst.
// What accounts.test.ts, oauth.test.ts, tokens.test.ts and jwt.test.ts already check is not repeated.
import { afterAll, describe, expect, test } from 'bun:test'
import { GOOD_PASSWORD, json, makeTestApp, problem, processEnv, register, setTier, uniqueEmail } from './support/app'
import { authorize, finishFlow, MockProvider, signIn, startFlow } from './support/oauth-provider'
import { startServer } from './support/process'
import { sqlNumber } from './support/sql'

const FRONTEND = 'https://app.example.test'
const idpA = await MockProvider.start('oidc')
const idpB = await MockProvider.start('github')
afterAll(() => Promise.all([idpA.stop(), idpB.stop()]))

const t = await makeTestApp({ FRONTEND_URL: FRONTEND, ...idpA.env('A'), ...idpB.env('B') })

const users = () => sqlNumber(t.storage, 'SELECT count(*) FROM users')
const postRegister = (email: string, password = GOOD_PASSWORD) =>
  t.request('/api/auth/register', { method: 'POST', json: { email, password, name: 'Hostile' } })
const postLogin = (email: string, password = GOOD_PASSWORD) => t.request('/api/auth/login', { method: 'POST', json: { email, password } })

let counter = 0
const sub = (prefix: string) => `${prefix}-${Date.now()}-${counter++}`

/**
 * The address was refused as the request's fault (422 on /email) and nothing was stored: the same
 * address is refused again (not 409) and logs in to nothing (401, not an account's answer).
 */
async function expectRefusedUnstored(email: string) {
  const before = await users()
  const body = await problem(await postRegister(email), 422, 'validation_failed')
  expect({ email, paths: (body.errors as { path: string }[]).map((e) => e.path) }).toEqual({ email, paths: ['/email'] })
  expect({ email, again: (await postRegister(email)).status }).toEqual({ email, again: 422 })
  expect({ email, login: (await postLogin(email)).status }).toEqual({ email, login: 401 })
  expect(await users()).toBe(before)
}

/** An address register took works everywhere: the register answer, login and the profile all carry it. */
async function expectWorking(email: string) {
  const res = await postRegister(email)
  expect({ email, status: res.status }).toEqual({ email, status: 201 })
  const stored = (await json(res)).user.email as string
  expect(stored).toBe(email.trim().toLowerCase())
  const login = await postLogin(email)
  expect({ email, login: login.status }).toEqual({ email, login: 200 })
  const me = await t.request('/api/user/me', { token: (await json(login)).access_token })
  expect({ email, me: me.status }).toEqual({ email, me: 200 })
  expect((await json(me)).email).toBe(stored)
}

describe('e-mail addresses: refused whole, or accepted and usable everywhere', () => {
  // Each of these used to create the account and then answer 422 "/user/email" (the answer's
  // own schema refused the address): the client was told its request was invalid, a retry got
  // 409 email_taken, and login and /api/user/me answered 422 for good.
  test('addresses the API cannot answer with are a 422 on /email, and nothing is stored', async () => {
    const refused = [
      'jos\u00e9@example.com', // é, composed (NFC)
      'jose\u0301@example.com', // é, decomposed (NFD)
      '\u0130nan@example.com', // İ lower-cases to i + a combining dot
      'p\u0430ypal@example.com', // Cyrillic а, a look-alike of a
      'victim@example.com\u200b', // zero-width space
      'vic\u202etim@example.com', // right-to-left override
      'vic\u0085tim@example.com', // a C1 control character
      '\ud800victim@example.com', // a lone surrogate
      'a@under_score.example',
      'a@-leading.example',
      'a@trailing-.example',
      '"quoted"@example.com',
      'a(comment)@example.com',
      'a,b@example.com',
      'a\\b@example.com',
      'a[b]@example.com',
      'a:b@example.com',
      'a;b@example.com',
      'a..b@example.com',
      '.a@example.com',
      'a.@example.com',
    ]
    for (const email of refused) await expectRefusedUnstored(email)
  })

  test('ordinary addresses, punycode domains and the longest local part still work', async () => {
    for (const email of [
      `o'brien+tag-${counter++}@example.com`,
      ` Mixed.Case_${counter++}@Sub.Example.CO.UK `,
      `x${counter++}@xn--exmple-cua.com`,
      `${'l'.repeat(62)}${counter++ % 10}x@example.com`,
    ]) {
      await expectWorking(email)
    }
  })
})

describe('OAuth: an address a provider verifies but the API cannot answer with', () => {
  test('ends in #error with no account, or in an account whose profile loads', async () => {
    for (const email of ['Jos\u00e9@Example.com', 'a_b@x_y.example', 'vic\u202etim@example.com']) {
      const before = await users()
      const user = idpA.add({ sub: sub('odd'), email, email_verified: true, name: 'Odd' })
      const { fragment } = await signIn(t, 'provider-a', user.sub)
      const token = fragment.get('access_token')
      if (token === null) {
        expect({ email, error: fragment.get('error') }).toEqual({ email, error: 'email_unverified' })
        expect(await users()).toBe(before)
      } else {
        const me = await t.request('/api/user/me', { token })
        expect({ email, me: me.status }).toEqual({ email, me: 200 })
      }
    }
  })
})

describe('passwords: lone surrogates', () => {
  // UTF-8 cannot carry a lone surrogate: hashed, it becomes U+FFFD, so every such password would
  // also be every other one that differs only there.
  test('a password is never the same as another that differs in a lone surrogate', async () => {
    const email = uniqueEmail('surrogate')
    const password = 'passphrase \ud800 one'
    const res = await postRegister(email, password)
    if (res.status !== 201) {
      await problem(res, 422, 'weak_password')
      return
    }
    for (const other of ['passphrase \udc00 one', 'passphrase \ufffd one', 'passphrase \udbff one']) {
      await problem(await postLogin(email, other), 401, 'invalid_credentials')
    }
    expect((await postLogin(email, password)).status).toBe(200)
  })
})

describe('names: stored as sent, or refused', () => {
  // A lone surrogate was stored as U+FFFD while the answer echoed what was sent; C1 controls (U+0085
  // is a line break to some readers) passed the control-character check.
  const hostile = ['A\u0085B', 'A\u009bB', 'half \ud800 pair', 'half \udfff']
  test('a user or token name with a C1 control or half a surrogate pair is a 422 on /name, and nothing is stored', async () => {
    for (const name of hostile) {
      const before = await users()
      const res = await t.request('/api/auth/register', { method: 'POST', json: { email: uniqueEmail('name'), password: GOOD_PASSWORD, name } })
      const body = await problem(res, 422, 'validation_failed')
      expect({ name, paths: (body.errors as { path: string }[]).map((e) => e.path) }).toEqual({ name, paths: ['/name'] })
      expect(await users()).toBe(before)
    }
    const owner = await register(t)
    await setTier(t, owner.user.id, 'pro')
    for (const name of hostile) {
      const res = await t.request('/api/user/tokens', { method: 'POST', token: owner.token, json: { name } })
      await problem(res, 422, 'validation_failed')
    }
    const listed = await json(await t.request('/api/user/tokens', { token: owner.token }))
    expect(listed.items ?? listed).toEqual([])
  })
})

describe('OAuth: a code belongs to the flow and the provider that issued it', () => {
  test('a code moved into another flow (its cookie and state) or to the other provider → invalid_grant, no account', async () => {
    const before = await users()
    const victim = idpA.add({ sub: sub('pkce'), email: uniqueEmail('pkce'), email_verified: true })
    // The code of one flow (its PKCE challenge) inside another flow: state and cookie match each other.
    const issued = await authorize(await startFlow(t, 'provider-a'), victim.sub)
    const other = await startFlow(t, 'provider-a')
    const moved = new URL(issued)
    moved.searchParams.set('state', other.authorizeUrl.searchParams.get('state')!)
    const first = await finishFlow(t, moved, other.cookie)
    expect({ error: first.fragment.get('error'), token: first.fragment.get('access_token') }).toEqual({ error: 'invalid_grant', token: null })

    // A code provider-b issued, presented at provider-a's callback with a genuine provider-a flow.
    const gh = idpB.add({ sub: String(700_000 + counter++), emails: [{ email: uniqueEmail('gh'), primary: true, verified: true }] })
    const fromB = await authorize(await startFlow(t, 'provider-b'), gh.sub)
    const flowA = await startFlow(t, 'provider-a')
    const crossed = new URL(`http://localhost/api/auth/callback/provider-a`)
    crossed.searchParams.set('code', fromB.searchParams.get('code')!)
    crossed.searchParams.set('state', flowA.authorizeUrl.searchParams.get('state')!)
    const second = await finishFlow(t, crossed, flowA.cookie)
    expect({ error: second.fragment.get('error'), token: second.fragment.get('access_token') }).toEqual({ error: 'invalid_grant', token: null })
    expect(await users()).toBe(before)
  })

  test('duplicated callback parameters are a redirect with #error, never a 4xx page or a token', async () => {
    const user = idpA.add({ sub: sub('dup'), email: uniqueEmail('dup'), email_verified: true })
    for (const extra of ['&state=forged', '&code=forged', '&error=access_denied']) {
      const flow = await startFlow(t, 'provider-a')
      const callback = await authorize(flow, user.sub)
      const res = await t.request(callback.pathname + callback.search + extra, { headers: { cookie: flow.cookie } })
      expect({ extra, status: res.status }).toEqual({ extra, status: 302 })
      const location = new URL(res.headers.get('location')!)
      expect(location.origin + location.pathname).toBe(`${FRONTEND}/auth/callback`)
      const fragment = new URLSearchParams(location.hash.slice(1))
      expect({ extra, token: fragment.get('access_token'), error: fragment.get('error') !== null }).toEqual({ extra, token: null, error: true })
    }
  })
})

describe('login timing of an account without a password', () => {
  // Real argon2 cost (the other tests hash cheaply): an account made by a provider has no
  // password hash, and a login attempt on it must not answer faster than a wrong password does.
  test('takes about as long as a wrong password on a password account', async () => {
    const real = await makeTestApp({ FRONTEND_URL: FRONTEND, ...idpA.env('A') }, { passwordHash: {} })
    const viaProvider = idpA.add({ sub: sub('nopw'), email: uniqueEmail('nopw'), email_verified: true })
    expect((await signIn(real, 'provider-a', viaProvider.sub)).fragment.get('access_token')).not.toBeNull()
    const withPassword = uniqueEmail('pw')
    expect(
      (await real.request('/api/auth/register', { method: 'POST', json: { email: withPassword, password: GOOD_PASSWORD, name: 'P' } })).status,
    ).toBe(201)
    const time = async (email: string) => {
      const started = performance.now()
      const res = await real.request('/api/auth/login', { method: 'POST', json: { email, password: 'not the password at all' } })
      await problem(res, 401, 'invalid_credentials')
      return performance.now() - started
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const none: number[] = []
    const wrong: number[] = []
    for (let i = 0; i < 5; i++) {
      none.push(await time(viaProvider.email!))
      wrong.push(await time(withPassword))
    }
    expect(median(wrong)).toBeGreaterThan(20) // a real verification happened
    const ratio = median(none) / median(wrong)
    expect(ratio).toBeGreaterThan(0.5)
    expect(ratio).toBeLessThan(2)
  })
})

describe('auth rate limit on a real server', () => {
  test('X-Forwarded-For does not buy a fresh budget without TRUST_PROXY, and a concurrent burst gets exactly the budget', async () => {
    const server = await startServer(await processEnv({ AUTH_RATE_LIMIT: '4', LOG_LEVEL: 'error' }))
    try {
      // The budget is per wall-clock minute: keep the burst inside one.
      const untilNextMinute = 60_000 - (Date.now() % 60_000)
      if (untilNextMinute < 3000) await Bun.sleep(untilNextMinute + 50)
      const responses = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          fetch(`${server.url}/api/auth/${i % 2 === 0 ? 'login' : 'register'}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${i}`, 'x-real-ip': `203.0.113.${i}` },
            body: JSON.stringify({ email: `burst-${i}@example.com`, password: 'wrong but long enough' }),
          }),
        ),
      )
      const statuses = responses.map((r) => r.status)
      expect(statuses.filter((s) => s !== 429)).toHaveLength(4)
      expect(statuses.filter((s) => s >= 500)).toEqual([])
      const limited = responses.find((r) => r.status === 429)!
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect((await json(limited)).code).toBe('rate_limited')
    } finally {
      server.kill()
      await server.exited
    }
  })
})
