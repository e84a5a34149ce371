// Sign-in through provider-a (OpenID Connect) and provider-b (GitHub-style), contract section 4,
// against real OAuth servers on loopback (test/support/oauth-provider.ts): start, consent,
// callback, accounts found, created and linked, and what the frontend gets in the fragment.
import { afterAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { loadConfig } from '../src/config'
import { FlowSealer } from '../src/features/oauth/flow-state'
import { providerSettings } from '../src/features/oauth/providers'
import { GOOD_PASSWORD, json, loggedSince, makeTestApp, problem, register, setTier, TEST_JWT_SECRET, uniqueEmail } from './support/app'
import { authorize, finishFlow, MockProvider, signIn, startFlow } from './support/oauth-provider'
import { sqlNumber } from './support/sql'

const FRONTEND = 'https://app.example.test'
const idpA = await MockProvider.start('oidc')
const idpB = await MockProvider.start('github')
afterAll(() => Promise.all([idpA.stop(), idpB.stop()]))

const t = await makeTestApp({ FRONTEND_URL: FRONTEND, ...idpA.env('A'), ...idpB.env('B') })

let counter = 0
/** A user at provider-a (OIDC) with a verified address unless told otherwise. */
const oidcUser = (extra: Partial<Parameters<MockProvider['add']>[0]> = {}) =>
  idpA.add({ sub: `a-${Date.now()}-${counter++}`, email: uniqueEmail('oidc'), email_verified: true, name: 'Grace Hopper', ...extra })
/** A user at provider-b (GitHub-style): numeric id, a primary verified address in /user/emails. */
const githubUser = (email = uniqueEmail('gh'), emails?: { email: string; primary: boolean; verified: boolean }[]) =>
  idpB.add({ sub: String(100_000 + counter++), name: 'Linus T', email: null, emails: emails ?? [{ email, primary: true, verified: true }] })

const me = async (token: string) => json(await t.request('/api/user/me', { token }))

function expectToken(fragment: URLSearchParams): string {
  expect(fragment.get('error')).toBeNull()
  expect(fragment.get('token_type')).toBe('bearer')
  return fragment.get('access_token')!
}

function expectError(fragment: URLSearchParams, code: string) {
  expect({ error: fragment.get('error'), token: fragment.get('access_token') }).toEqual({ error: code, token: null })
  expect(fragment.get('error_description')!.length).toBeGreaterThan(10)
}

describe('start', () => {
  test('302 to the provider with state, PKCE S256 and the preset scopes; the cookie holds the verifier', async () => {
    const flow = await startFlow(t, 'provider-a')
    const q = flow.authorizeUrl.searchParams
    expect(flow.authorizeUrl.origin + flow.authorizeUrl.pathname).toBe(`${idpA.url}/authorize`)
    expect(Object.fromEntries(q)).toMatchObject({
      response_type: 'code',
      client_id: 'client-a',
      redirect_uri: 'http://localhost:8000/api/auth/callback/provider-a',
      scope: 'openid email profile',
      code_challenge_method: 'S256',
    })
    expect(q.get('state')!.length).toBeGreaterThanOrEqual(32)
    // The cookie is sealed with a key from the JWT secret; opened here only to check the challenge.
    const sealed = flow.cookie.slice(flow.cookie.indexOf('=') + 1)
    const opened = new FlowSealer(TEST_JWT_SECRET).open('provider-a', sealed)!
    expect(opened.state).toBe(q.get('state')!)
    expect(q.get('code_challenge')).toBe(createHash('sha256').update(opened.codeVerifier).digest('base64url'))
    expect(sealed).not.toContain(opened.codeVerifier)

    const b = await startFlow(t, 'provider-b')
    expect(b.authorizeUrl.searchParams.get('scope')).toBe('read:user user:email')
    expect(b.authorizeUrl.searchParams.get('redirect_uri')).toBe('http://localhost:8000/api/auth/callback/provider-b')
  })

  test('the flow cookie: one per provider, HttpOnly, SameSite=Lax, 10 minutes, scoped to the callback; no-store', async () => {
    const res = await t.request('/api/auth/provider-b')
    expect(res.status).toBe(302)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const attributes = res.headers
      .get('set-cookie')!
      .split(';')
      .map((a) => a.trim())
    expect(attributes[0]).toStartWith('plib_oauth_provider-b=')
    expect(attributes.slice(1).sort()).toEqual(['HttpOnly', 'Max-Age=600', 'Path=/api/auth/callback/provider-b', 'SameSite=Lax'])
  })

  test('Secure when PUBLIC_URL is https, and scoped to its path', async () => {
    const https = await makeTestApp({ PUBLIC_URL: 'https://api.example.test/promptlib', ...idpA.env('A') })
    const flow = await startFlow(https, 'provider-a')
    expect(flow.setCookie).toContain('; Secure')
    expect(flow.setCookie).toContain('Path=/promptlib/api/auth/callback/provider-a;')
    expect(flow.authorizeUrl.searchParams.get('redirect_uri')).toBe('https://api.example.test/promptlib/api/auth/callback/provider-a')
  })

  test('an unconfigured provider → 404 oauth_provider_disabled, on both routes', async () => {
    const bare = await makeTestApp({ ...idpA.env('A') })
    await problem(await bare.request('/api/auth/provider-b'), 404, 'oauth_provider_disabled')
    await problem(await bare.request('/api/auth/callback/provider-b?code=x&state=y'), 404, 'oauth_provider_disabled')
    expect((await bare.request('/api/auth/provider-a')).status).toBe(302)
  })

  test('?redirect= must be a path on the frontend’s origin; anything else is refused (422), never followed', async () => {
    for (const bad of [
      'https://evil.example',
      '//evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      'javascript:alert(1)',
      'evil',
      '/a b',
      '/a\tb',
      `/${'x'.repeat(1100)}`,
    ]) {
      const body = await problem(await t.request(`/api/auth/provider-a?redirect=${encodeURIComponent(bad)}`), 422, 'validation_failed')
      expect(body.errors).toEqual([{ path: '/redirect', message: expect.any(String) }])
    }
  })
})

describe('callback: accounts', () => {
  test('a new user gets an account (no password, e-mail verified) and a JWT in the fragment', async () => {
    const user = oidcUser({ name: '  Grace\u0007 Hopper  ' })
    const { res, location, fragment } = await signIn(t, 'provider-a', user.sub)
    expect(location.origin + location.pathname).toBe(`${FRONTEND}/auth/callback`)
    expect(location.search).toBe('')
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.headers.get('referrer-policy')).toBe('no-referrer')
    expect(res.headers.get('set-cookie')).toBe('plib_oauth_provider-a=; Max-Age=0; Path=/api/auth/callback/provider-a; HttpOnly; SameSite=Lax')
    expect([...fragment.keys()]).toEqual(['access_token', 'token_type'])
    const token = expectToken(fragment)
    const profile = await me(token)
    expect(profile).toMatchObject({ email: user.email!.toLowerCase(), name: 'Grace  Hopper', tier: 'free', providers: ['provider-a'] })
    // No password: login fails like any wrong password.
    await problem(
      await t.request('/api/auth/login', { method: 'POST', json: { email: user.email, password: GOOD_PASSWORD } }),
      401,
      'invalid_credentials',
    )
  })

  test('the same provider user signs in to the same account, whatever e-mail the provider reports later', async () => {
    const user = oidcUser()
    const first = await me(expectToken((await signIn(t, 'provider-a', user.sub)).fragment))
    user.email = uniqueEmail('changed')
    user.email_verified = false
    const second = await me(expectToken((await signIn(t, 'provider-a', user.sub)).fragment))
    expect(second.id).toBe(first.id)
    expect(second.email).toBe(first.email)
    expect(await sqlNumber(t.storage, 'SELECT count(*) FROM oauth_identities WHERE user_id = $1', [first.id])).toBe(1)
  })

  test('a NUL (U+0000) in what the provider reports is no server error, on either engine (PostgreSQL cannot hold it)', async () => {
    const before = t.log.lines().length
    // an identity already linked, whose provider now reports an address with a NUL
    const linked = oidcUser()
    const first = await me(expectToken((await signIn(t, 'provider-a', linked.sub)).fragment))
    linked.email = 'grace\u0000@example.com'
    expect((await me(expectToken((await signIn(t, 'provider-a', linked.sub)).fragment))).id).toBe(first.id)
    // a new user whose address or name holds one
    expectError((await signIn(t, 'provider-a', oidcUser({ email: 'new\u0000@example.com' }).sub)).fragment, 'email_unverified')
    const named = await me(expectToken((await signIn(t, 'provider-a', oidcUser({ name: 'Ada\u0000Lovelace' }).sub)).fragment))
    expect(named.name).not.toContain('\u0000')
    expect(loggedSince(t, before)).toEqual([])
  })

  test('no verified e-mail and no linked identity → #error=email_unverified, no account made', async () => {
    const users = await sqlNumber(t.storage, 'SELECT count(*) FROM users')
    expectError((await signIn(t, 'provider-a', oidcUser({ email_verified: false }).sub)).fragment, 'email_unverified')
    expectError((await signIn(t, 'provider-a', oidcUser({ email: null }).sub)).fragment, 'email_unverified')
    expect(await sqlNumber(t.storage, 'SELECT count(*) FROM users')).toBe(users)
  })

  test('email_verified as the string "true" counts (some providers send it so)', async () => {
    expectToken((await signIn(t, 'provider-a', oidcUser({ email_verified: 'true' }).sub)).fragment)
  })

  test('provider-b: the primary, verified address of /user/emails; a verified secondary is not enough', async () => {
    const primary = uniqueEmail('primary')
    const user = githubUser(primary, [
      { email: uniqueEmail('other'), primary: false, verified: true },
      { email: primary, primary: true, verified: true },
    ])
    const token = expectToken((await signIn(t, 'provider-b', user.sub)).fragment)
    expect(await me(token)).toMatchObject({ email: primary, name: 'Linus T', providers: ['provider-b'] })

    const unproven = githubUser(uniqueEmail(), [
      { email: uniqueEmail('p'), primary: true, verified: false },
      { email: uniqueEmail('s'), primary: false, verified: true },
    ])
    expectError((await signIn(t, 'provider-b', unproven.sub)).fragment, 'email_unverified')
    expect(idpB.requests).toContain('GET /user/emails')
  })

  test('a verified address links to the existing account that proved it; both providers are listed', async () => {
    const email = uniqueEmail('both')
    const viaA = await me(expectToken((await signIn(t, 'provider-a', oidcUser({ email }).sub)).fragment))
    const viaB = await me(expectToken((await signIn(t, 'provider-b', githubUser(email.toUpperCase()).sub)).fragment))
    expect(viaB.id).toBe(viaA.id)
    expect(viaB.providers).toEqual(['provider-a', 'provider-b'])
  })

  test('an unverified address at the provider never reaches an existing account', async () => {
    const owner = await register(t)
    expectError((await signIn(t, 'provider-a', oidcUser({ email: owner.email, email_verified: false }).sub)).fragment, 'email_unverified')
    expect((await t.request('/api/user/me', { token: owner.token })).status).toBe(200)
    expect((await t.request('/api/auth/login', { method: 'POST', json: { email: owner.email, password: owner.password } })).status).toBe(200)
  })

  test('pre-hijacking: linking an account whose e-mail was never proven clears its password, PATs and earlier JWTs', async () => {
    // Someone registered the victim's address first and made a token for later.
    const squatter = await register(t)
    await setTier(t, squatter.user.id, 'starter')
    const pat = await json(await t.request('/api/user/tokens', { method: 'POST', token: squatter.token, json: { name: 'later' } }))
    expect((await t.request('/api/user/me', { token: pat.token })).status).toBe(200)

    const token = expectToken((await signIn(t, 'provider-a', oidcUser({ email: squatter.email }).sub)).fragment)
    const profile = await me(token)
    expect(profile).toMatchObject({ id: squatter.user.id, tier: 'starter', providers: ['provider-a'] })
    await problem(await t.request('/api/user/me', { token: squatter.token }), 401, 'token_revoked')
    await problem(await t.request('/api/user/me', { token: pat.token }), 401, 'token_revoked')
    await problem(
      await t.request('/api/auth/login', { method: 'POST', json: { email: squatter.email, password: squatter.password } }),
      401,
      'invalid_credentials',
    )
  })

  test('an account whose e-mail a provider proved keeps its password when another provider links', async () => {
    const email = uniqueEmail('kept')
    const token = expectToken((await signIn(t, 'provider-a', oidcUser({ email }).sub)).fragment)
    expect((await t.request('/api/user/password', { method: 'POST', token, json: { new_password: 'my first real passphrase' } })).status).toBe(204)
    const login = await json(await t.request('/api/auth/login', { method: 'POST', json: { email, password: 'my first real passphrase' } }))
    const viaB = await me(expectToken((await signIn(t, 'provider-b', githubUser(email).sub)).fragment))
    expect(viaB.providers).toEqual(['password', 'provider-a', 'provider-b'])
    expect((await t.request('/api/user/me', { token: login.access_token })).status).toBe(200)
    expect((await t.request('/api/auth/login', { method: 'POST', json: { email, password: 'my first real passphrase' } })).status).toBe(200)
  })

  test('six callbacks of one new user at once: one account, one identity, six tokens for it', async () => {
    // The user info answers all six together, so the six linking transactions overlap.
    const user = oidcUser()
    const waiting: (() => void)[] = []
    const barrier = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: async () => {
        await new Promise<void>((resolve) => {
          waiting.push(resolve)
          if (waiting.length === 6) for (const go of waiting) go()
        })
        return Response.json({ sub: user.sub, email: user.email, email_verified: true })
      },
    })
    try {
      const app = await makeTestApp({ FRONTEND_URL: FRONTEND, ...idpA.env('A'), OAUTH_A_USERINFO_URL: `http://127.0.0.1:${barrier.port}/userinfo` })
      const flows = await Promise.all(Array.from({ length: 6 }, () => startFlow(app, 'provider-a')))
      const urls = await Promise.all(flows.map((f) => authorize(f, user.sub)))
      const done = await Promise.all(urls.map((url, i) => finishFlow(app, url, flows[i]!.cookie)))
      const ids = await Promise.all(done.map(async (d) => (await json(await app.request('/api/user/me', { token: expectToken(d.fragment) }))).id))
      expect(new Set(ids).size).toBe(1)
      expect(await sqlNumber(app.storage, 'SELECT count(*) FROM users')).toBe(1)
      expect(await sqlNumber(app.storage, 'SELECT count(*) FROM oauth_identities')).toBe(1)
    } finally {
      barrier.stop(true)
    }
  })

  test('deleting the account deletes its identities: the next sign-in makes a new account', async () => {
    const user = oidcUser()
    const token = expectToken((await signIn(t, 'provider-a', user.sub)).fragment)
    const { id } = await me(token)
    expect((await t.request('/api/user/me', { method: 'DELETE', token })).status).toBe(204)
    expect(await sqlNumber(t.storage, 'SELECT count(*) FROM oauth_identities WHERE user_id = $1', [id])).toBe(0)
    expect((await me(expectToken((await signIn(t, 'provider-a', user.sub)).fragment))).id).not.toBe(id)
  })

  test('?redirect= comes back in the fragment, on success and on failure', async () => {
    const ok = await signIn(t, 'provider-a', oidcUser().sub, `?redirect=${encodeURIComponent('/prompts/42?tab=1#x')}`)
    expectToken(ok.fragment)
    expect(ok.fragment.get('redirect')).toBe('/prompts/42?tab=1#x')
    const denied = await signIn(t, 'provider-a', oidcUser({ deny: true }).sub, '?redirect=/favorites')
    expectError(denied.fragment, 'access_denied')
    expect(denied.fragment.get('redirect')).toBe('/favorites')
  })
})

describe('callback: failures are redirects with #error, never a token or a 5xx', () => {
  test('the user denies at the provider → access_denied', async () => {
    const { fragment, location } = await signIn(t, 'provider-b', idpB.add({ sub: '999', deny: true }).sub)
    expect(location.origin + location.pathname).toBe(`${FRONTEND}/auth/callback`)
    expectError(fragment, 'access_denied')
  })

  test('no cookie, another browser’s cookie, a forged or expired one, a wrong or missing state → invalid_state', async () => {
    const user = oidcUser()
    const flow = await startFlow(t, 'provider-a')
    const callback = await authorize(flow, user.sub)
    const sealer = new FlowSealer(TEST_JWT_SECRET)
    const stateOf = (url: URL) => url.searchParams.get('state')!
    const sealed = (over: Partial<Parameters<FlowSealer['seal']>[1]>, provider = 'provider-a') =>
      `plib_oauth_provider-a=${sealer.seal(provider, { state: stateOf(callback), codeVerifier: 'v'.repeat(43), redirect: null, expiresAt: Math.floor(Date.now() / 1000) + 600, ...over })}`
    const other = await startFlow(t, 'provider-a')
    const withoutState = new URL(callback)
    withoutState.searchParams.delete('state')
    const wrongState = new URL(callback)
    wrongState.searchParams.set('state', 'x'.repeat(stateOf(callback).length))

    const cases: [URL, string | undefined][] = [
      [callback, undefined],
      [callback, other.cookie],
      [callback, `plib_oauth_provider-a=${Buffer.from('{"s":"x"}').toString('base64url')}`],
      [callback, sealed({ expiresAt: Math.floor(Date.now() / 1000) - 1 })],
      [callback, sealed({}, 'provider-b')],
      [callback, `plib_oauth_provider-a=${flow.cookie.slice(flow.cookie.indexOf('=') + 1, -2)}AA`],
      [withoutState, flow.cookie],
      [wrongState, flow.cookie],
    ]
    const exchanges = idpA.requests.filter((r) => r === 'POST /token').length
    for (const [url, cookie] of cases) expectError((await finishFlow(t, url, cookie)).fragment, 'invalid_state')
    // None of them reached the provider: the code is still good for the real flow.
    expect(idpA.requests.filter((r) => r === 'POST /token').length).toBe(exchanges)
    expectToken((await finishFlow(t, callback, flow.cookie)).fragment)
  })

  test('HEAD of the callback (a link checker, a prefetch) is refused with 405 and spends nothing: the GET after it signs in', async () => {
    const flow = await startFlow(t, 'provider-a')
    const callback = await authorize(flow, oidcUser().sub)
    const path = callback.pathname + callback.search
    const head = await t.request(path, { method: 'HEAD', headers: { cookie: flow.cookie } })
    expect(head.status).toBe(405)
    expect(head.headers.get('allow')).toBe('GET, OPTIONS')
    const options = await t.request(path, { method: 'OPTIONS' })
    expect({ status: options.status, allow: options.headers.get('allow') }).toEqual({ status: 204, allow: 'GET, OPTIONS' })
    expectToken((await finishFlow(t, callback, flow.cookie)).fragment)
  })

  test('a code used once is refused the second time → invalid_grant', async () => {
    const flow = await startFlow(t, 'provider-a')
    const callback = await authorize(flow, oidcUser().sub)
    expectToken((await finishFlow(t, callback, flow.cookie)).fragment)
    expectError((await finishFlow(t, callback, flow.cookie)).fragment, 'invalid_grant')
  })

  test('the provider refuses the code (RFC 6749 error, or GitHub’s HTTP 200 with an error field) → invalid_grant', async () => {
    idpA.server.service.once('beforeResponse', (response: { statusCode: number; body: unknown }) => {
      response.statusCode = 400
      response.body = { error: 'invalid_grant', error_description: 'expired' }
    })
    expectError((await signIn(t, 'provider-a', oidcUser().sub)).fragment, 'invalid_grant')
    idpB.server.service.once('beforeResponse', (response: { statusCode: number; body: unknown }) => {
      response.statusCode = 200
      response.body = { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' }
    })
    expectError((await signIn(t, 'provider-b', githubUser().sub)).fragment, 'invalid_grant')
  })

  test('garbage from the token endpoint or the user info → provider_error', async () => {
    const garbage: [MockProvider, 'provider-a' | 'provider-b', () => string, () => void][] = [
      [
        idpA,
        'provider-a',
        () => oidcUser().sub,
        () => idpA.server.service.once('beforeResponse', (r: { body: unknown }) => void (r.body = { token_type: 'Bearer' })),
      ],
      [
        idpA,
        'provider-a',
        () => oidcUser().sub,
        () => idpA.server.service.once('beforeResponse', (r: { body: unknown }) => void (r.body = '<html>hello</html>')),
      ],
      [idpA, 'provider-a', () => oidcUser().sub, () => void (idpA.nextUserinfo = { status: 200, body: [1, 2, 3] })],
      [
        idpA,
        'provider-a',
        () => oidcUser().sub,
        () => void (idpA.nextUserinfo = { status: 200, body: { email: 'x@example.com', email_verified: true } }),
      ],
      [idpA, 'provider-a', () => oidcUser().sub, () => void (idpA.nextUserinfo = { status: 200, body: { sub: 'x'.repeat(300) } })],
      [idpA, 'provider-a', () => oidcUser().sub, () => void (idpA.nextUserinfo = { status: 401, body: { error: 'invalid_token' } })],
      [idpB, 'provider-b', () => githubUser().sub, () => void (idpB.nextUserinfo = { status: 200, body: { login: 'no-id' } })],
    ]
    for (const [, provider, sub, spoil] of garbage) {
      const user = sub()
      spoil()
      expectError((await signIn(t, provider, user)).fragment, 'provider_error')
    }
  })

  test('a provider that is down, answers 5xx, or is too slow → provider_unavailable, in time', async () => {
    const closed = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
    const closedUrl = `http://127.0.0.1:${closed.port}`
    closed.stop(true)
    const slow = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      idleTimeout: 0,
      fetch: async () => (await Bun.sleep(3000), Response.json({ access_token: 'late', token_type: 'bearer' })),
    })
    const failing = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('upstream down', { status: 503 }) })
    try {
      const variants: Record<string, string>[] = [
        { OAUTH_A_TOKEN_URL: `${closedUrl}/token` },
        { OAUTH_A_TOKEN_URL: `http://127.0.0.1:${slow.port}/token` },
        { OAUTH_A_TOKEN_URL: `http://127.0.0.1:${failing.port}/token` },
        { OAUTH_A_USERINFO_URL: `http://127.0.0.1:${slow.port}/userinfo` },
        { OAUTH_A_USERINFO_URL: `http://127.0.0.1:${failing.port}/userinfo` },
      ]
      for (const variant of variants) {
        const app = await makeTestApp({ FRONTEND_URL: FRONTEND, ...idpA.env('A'), ...variant }, { oauthTimeoutMs: 300 })
        const started = performance.now()
        expectError((await signIn(app, 'provider-a', oidcUser().sub)).fragment, 'provider_unavailable')
        expect(performance.now() - started).toBeLessThan(2000)
        expect(app.log.text()).toContain('"code":"provider_unavailable"')
      }
    } finally {
      slow.stop(true)
      failing.stop(true)
    }
  })

  test('a callback without a code, or with a provider error other than denial → provider_error', async () => {
    const flow = await startFlow(t, 'provider-a')
    const callback = await authorize(flow, oidcUser().sub)
    const noCode = new URL(callback)
    noCode.searchParams.delete('code')
    expectError((await finishFlow(t, noCode, flow.cookie)).fragment, 'provider_error')
    const other = new URL(callback)
    other.searchParams.set('error', 'invalid_scope')
    expectError((await finishFlow(t, other, flow.cookie)).fragment, 'provider_error')
  })
})

describe('presets and overrides', () => {
  test('provider-a is Google (OIDC), provider-b is GitHub with its e-mail list; the redirect URI follows PUBLIC_URL', () => {
    const config = loadConfig({
      PUBLIC_URL: 'https://api.example.test',
      OAUTH_A_CLIENT_ID: 'a',
      OAUTH_A_CLIENT_SECRET: 's',
      OAUTH_B_CLIENT_ID: 'b',
      OAUTH_B_CLIENT_SECRET: 's',
    })
    expect(providerSettings(config, 'provider-a')).toEqual({
      name: 'provider-a',
      clientId: 'a',
      clientSecret: 's',
      authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenUrl: 'https://oauth2.googleapis.com/token',
      userinfoUrl: 'https://openidconnect.googleapis.com/v1/userinfo',
      emailsUrl: null,
      scopes: ['openid', 'email', 'profile'],
      redirectUri: 'https://api.example.test/api/auth/callback/provider-a',
    })
    expect(providerSettings(config, 'provider-b')).toMatchObject({
      authorizeUrl: 'https://github.com/login/oauth/authorize',
      tokenUrl: 'https://github.com/login/oauth/access_token',
      userinfoUrl: 'https://api.github.com/user',
      emailsUrl: 'https://api.github.com/user/emails',
      scopes: ['read:user', 'user:email'],
    })
    expect(providerSettings(loadConfig({}), 'provider-a')).toBeNull()
  })

  test('provider-b pointed at an OpenID Connect provider (Keycloak, GitLab…) takes the e-mail from its user info', async () => {
    const config = loadConfig({ OAUTH_B_CLIENT_ID: 'b', OAUTH_B_CLIENT_SECRET: 's', OAUTH_B_USERINFO_URL: 'https://sso.example.test/userinfo' })
    expect(providerSettings(config, 'provider-b')).toMatchObject({ userinfoUrl: 'https://sso.example.test/userinfo', emailsUrl: null })

    const app = await makeTestApp({ FRONTEND_URL: FRONTEND, ...idpA.env('B'), OAUTH_B_SCOPES: 'openid email profile' })
    const user = oidcUser()
    const flow = await startFlow(app, 'provider-b')
    expect(flow.authorizeUrl.searchParams.get('scope')).toBe('openid email profile')
    const token = expectToken((await finishFlow(app, await authorize(flow, user.sub), flow.cookie)).fragment)
    expect(await json(await app.request('/api/user/me', { token }))).toMatchObject({ email: user.email!.toLowerCase(), providers: ['provider-b'] })
  })
})

describe('OpenAPI', () => {
  test('the four routes, tagged oauth, documented as redirects with their headers', async () => {
    const doc = await json(await t.request('/api/openapi.json'))
    expect(doc.tags.map((tag: { name: string }) => tag.name)).toContain('oauth')
    for (const path of ['/api/auth/provider-a', '/api/auth/provider-b', '/api/auth/callback/provider-a', '/api/auth/callback/provider-b']) {
      const op = doc.paths[path].get
      expect(op.tags).toEqual(['oauth'])
      expect(Object.keys(op.responses['302'].headers)).toEqual(['Location', 'Set-Cookie'])
      expect(op.responses['404'].content['application/problem+json'].schema.required).toContain('code')
    }
    expect(doc.paths['/api/auth/provider-a'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['redirect'])
  })
})

describe('any instance finishes a flow another started', () => {
  test('a second app on the same storage and secret completes it; one with another secret refuses it', async () => {
    const { createApp } = await import('../src/app')
    const { createMemoryLogger } = await import('../src/log')
    const instance = (secret: string) => {
      const app = createApp({ config: t.config, storage: t.storage, log: createMemoryLogger(), jwtSecret: secret })
      return { request: async (path: string, init?: RequestInit) => app.handle(new Request(`http://localhost${path}`, init)) }
    }
    const user = oidcUser()
    const flow = await startFlow(t, 'provider-a')
    const callback = await authorize(flow, user.sub)
    expectError((await finishFlow(instance('another-secret-another-secret-0123456789'), callback, flow.cookie)).fragment, 'invalid_state')
    const token = expectToken((await finishFlow(instance(TEST_JWT_SECRET), callback, flow.cookie)).fragment)
    expect((await me(token)).email).toBe(user.email!.toLowerCase())
  })
})

describe('logs', () => {
  test('failures are logged with the request id; no token, code or verifier is ever logged', async () => {
    const app = await makeTestApp({ FRONTEND_URL: FRONTEND, ...idpA.env('A') })
    const flow = await startFlow(app, 'provider-a')
    const callback = await authorize(flow, oidcUser().sub)
    const ok = await finishFlow(app, callback, flow.cookie)
    const again = await app.request(callback.pathname + callback.search, { headers: { cookie: flow.cookie, 'x-request-id': 'replay-1' } })
    expect(again.status).toBe(302)
    const text = app.log.text()
    const failure = app.log.lines().find((l) => l.msg === 'oauth sign-in failed')
    expect(failure).toMatchObject({ level: 'warn', request_id: 'replay-1', provider: 'provider-a', code: 'invalid_grant' })
    for (const secret of [
      ok.fragment.get('access_token')!,
      callback.searchParams.get('code')!,
      callback.searchParams.get('state')!,
      flow.cookie.split('=')[1]!,
    ]) {
      expect(text).not.toContain(secret)
    }
  })
})

describe('POST /api/user/password for an account without a password', () => {
  test('sets the first password without current_password; sending one is refused; then it is an ordinary account', async () => {
    const user = oidcUser()
    const token = expectToken((await signIn(t, 'provider-a', user.sub)).fragment)
    const change = (body: unknown, with_ = token) => t.request('/api/user/password', { method: 'POST', token: with_, json: body })
    await problem(await change({ current_password: '', new_password: 'my first real passphrase' }), 422, 'invalid_current_password')
    await problem(await change({ new_password: 'password' }), 422, 'weak_password')
    expect((await change({ new_password: 'my first real passphrase' })).status).toBe(204)
    await problem(await t.request('/api/user/me', { token }), 401, 'token_revoked')
    const login = await json(
      await t.request('/api/auth/login', { method: 'POST', json: { email: user.email, password: 'my first real passphrase' } }),
    )
    expect((await me(login.access_token)).providers).toEqual(['password', 'provider-a'])
    // Now it has one: current_password is required again.
    const required = await problem(await change({ new_password: 'another real passphrase' }, login.access_token), 422, 'invalid_current_password')
    expect(required.errors).toEqual([{ path: '/current_password', message: expect.any(String) }])
  })

  test('a password account still needs its current password', async () => {
    const { token } = await register(t)
    await problem(
      await t.request('/api/user/password', { method: 'POST', token, json: { new_password: 'another long passphrase' } }),
      422,
      'invalid_current_password',
    )
  })
})
