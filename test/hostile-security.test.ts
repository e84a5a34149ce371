// Authentication as an attacker sees it: races between a credential check and the change that
// revokes it, accounts deleted under a request, and passwords typed in another Unicode form.
// Runs on both engines (PROMPTLIB_TEST_POSTGRES for the PostgreSQL pass).
import { afterEach, describe, expect, setSystemTime, test } from 'bun:test'
import { GOOD_PASSWORD, json, makeTestApp, problem, register, setTier, uniqueEmail } from './support/app'
import { sqlRun } from './support/sql'

/**
 * Holds the next Bun.password.verify call (the one a request under test makes) until `release()`;
 * every other call goes through. `reached` resolves once the held call has started, i.e. once
 * the request has read the account it checks the password against.
 */
function holdNextPasswordVerify() {
  const password = Bun.password as { verify: typeof Bun.password.verify }
  const original = password.verify
  let release!: () => void
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  let reachedResolve!: () => void
  const reached = new Promise<void>((resolve) => {
    reachedResolve = resolve
  })
  let held = false
  password.verify = (async (...args: Parameters<typeof Bun.password.verify>) => {
    if (!held) {
      held = true
      reachedResolve()
      await gate
    }
    return original.apply(Bun.password, args)
  }) as typeof Bun.password.verify
  return {
    reached,
    release,
    restore: () => {
      password.verify = original
    },
  }
}

afterEach(() => setSystemTime())

describe('a login racing a password change', async () => {
  const t = await makeTestApp()

  test('a login that checked the old password while it was being changed yields no working token', async () => {
    const { token, email } = await register(t)
    const hold = holdNextPasswordVerify()
    let login: Promise<Response>
    try {
      // The attacker's login reads the account (old password hash) and starts verifying…
      login = t.request('/api/auth/login', { method: 'POST', json: { email, password: GOOD_PASSWORD } })
      await hold.reached
      // …meanwhile the owner changes the password, which should end every session of the old one…
      const changed = await t.request('/api/user/password', {
        method: 'POST',
        token,
        json: { current_password: GOOD_PASSWORD, new_password: 'an entirely new passphrase' },
      })
      expect(changed.status).toBe(204)
      // …and the attacker's verification finishes a couple of seconds later (the clock moved on).
      setSystemTime(new Date(Date.now() + 2500))
    } finally {
      hold.release()
      hold.restore()
    }
    const res = await login
    if (res.status === 200) {
      // Whatever the login answers, the token it hands out must not outlive the change.
      const stale = (await json(res)).access_token as string
      const me = await t.request('/api/user/me', { token: stale })
      expect(me.status).toBe(401)
    } else {
      await problem(res, 401, 'invalid_credentials')
    }
    // The new password works as usual (with the clock moved on too).
    const fresh = await t.request('/api/auth/login', { method: 'POST', json: { email, password: 'an entirely new passphrase' } })
    expect(fresh.status).toBe(200)
    expect((await t.request('/api/user/me', { token: (await json(fresh)).access_token })).status).toBe(200)
  })
})

describe('personal access tokens of an account deleted meanwhile', async () => {
  const t = await makeTestApp()

  test('creating one while the account is deleted → 201 (then gone) or 401, never 500', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) {
      const u = await register(t)
      await setTier(t, u.user.id, 'pro')
      const [deleted, created] = await Promise.all([
        t.request('/api/user/me', { method: 'DELETE', token: u.token }),
        t.request('/api/user/tokens', { method: 'POST', token: u.token, json: { name: 'race' } }),
      ])
      expect(deleted.status).toBe(204)
      statuses.push(created.status)
      if (created.status === 201) {
        const pat = (await json(created)).token as string
        expect((await t.request('/api/user/me', { token: pat })).status).toBe(401)
      } else {
        await problem(created, 401, 'invalid_token')
      }
    }
    expect(statuses.every((s) => s === 201 || s === 401)).toBe(true)
  })

  test('the service refuses an account that no longer exists with a 401, not a database error', async () => {
    const u = await register(t)
    await setTier(t, u.user.id, 'pro')
    const user = (await t.services.accounts.authUserById(u.user.id))!
    expect((await t.request('/api/user/me', { method: 'DELETE', token: u.token })).status).toBe(204)
    const error = await t.services.tokens.create(user, 'after deletion').then(
      () => null,
      (e: unknown) => e,
    )
    expect(error).toMatchObject({ status: 401, code: 'invalid_token' })
    const before = t.log.lines().length
    const res = await t.request('/api/user/tokens', { token: u.token })
    expect(res.status).toBe(401)
    expect(
      t.log
        .lines()
        .slice(before)
        .filter((l) => l.level === 'error'),
    ).toEqual([])
  })
})

describe('a personal access token minted by a JWT that is revoked meanwhile', async () => {
  const t = await makeTestApp()

  /** Runs `meanwhile` after the request authenticated and before its token is stored. */
  async function createRacing(token: string, meanwhile: () => Promise<void>): Promise<Response> {
    const tokens = t.services.tokens
    const original = tokens.create
    tokens.create = async (...args) => {
      await meanwhile()
      return original(...args)
    }
    try {
      return await t.request('/api/user/tokens', { method: 'POST', token, json: { name: 'in flight' } })
    } finally {
      tokens.create = original
    }
  }

  test('a verified sign-in takes the account over (clearing password, JWTs and PATs) while a PAT is created: no PAT survives', async () => {
    // The pre-hijacker registered the victim's address and pays for a tier with API access.
    const squatter = await register(t)
    await setTier(t, squatter.user.id, 'starter')
    const res = await createRacing(squatter.token, async () => {
      // What the OAuth callback does in one transaction when the provider vouches for the address.
      await t.storage.transaction(async (tx) => {
        const confirmed = await t.services.accounts.confirmEmail(squatter.user.id, tx)
        expect(confirmed?.tookOver).toBe(true)
        await t.services.tokens.revokeAll(squatter.user.id, tx)
      })
    })
    if (res.status === 201) {
      const pat = (await json(res)).token as string
      expect((await t.request('/api/user/me', { token: pat })).status).toBe(401)
    } else {
      await problem(res, 401, 'token_revoked')
    }
    // Nothing live is left for the squatter, and the account's owner can still create one.
    const owner = t.services.accounts.issueToken((await t.services.accounts.byId(squatter.user.id))!)
    expect((await json(await t.request('/api/user/tokens', { token: owner }))).items).toEqual([])
    expect((await t.request('/api/user/tokens', { method: 'POST', token: owner, json: { name: 'owner' } })).status).toBe(201)
  })

  test('a password change while a PAT is created with an earlier JWT: the new PAT does not outlive that JWT', async () => {
    const { token, user } = await register(t)
    await setTier(t, user.id, 'pro')
    const res = await createRacing(token, async () => {
      const changed = await t.request('/api/user/password', {
        method: 'POST',
        token,
        json: { current_password: GOOD_PASSWORD, new_password: 'a brand new passphrase' },
      })
      expect(changed.status).toBe(204)
    })
    if (res.status === 201) {
      const pat = (await json(res)).token as string
      expect((await t.request('/api/user/me', { token: pat })).status).toBe(401)
    } else {
      await problem(res, 401, 'token_revoked')
    }
  })
})

describe('passwords are compared in one Unicode form (NFC)', async () => {
  const t = await makeTestApp()
  const typed = 'Grüße aus Köln, ein Café am Fluß'
  const nfc = typed.normalize('NFC')
  const nfd = typed.normalize('NFD')

  test('registered as composed characters, the decomposed spelling logs in (and the other way round)', async () => {
    expect(nfc).not.toBe(nfd)
    const a = await register(t, { password: nfc })
    expect((await t.request('/api/auth/login', { method: 'POST', json: { email: a.email, password: nfd } })).status).toBe(200)
    expect((await t.request('/api/auth/login', { method: 'POST', json: { email: a.email, password: nfc } })).status).toBe(200)
    const b = await register(t, { password: nfd })
    expect((await t.request('/api/auth/login', { method: 'POST', json: { email: b.email, password: nfc } })).status).toBe(200)
    expect((await t.request('/api/auth/login', { method: 'POST', json: { email: b.email, password: nfd } })).status).toBe(200)
    // a different password is still wrong
    await problem(await t.request('/api/auth/login', { method: 'POST', json: { email: a.email, password: `${nfc}!` } }), 401, 'invalid_credentials')
  })

  test('the current password of a change may be typed in either form', async () => {
    const a = await register(t, { password: nfd })
    const res = await t.request('/api/user/password', {
      method: 'POST',
      token: a.token,
      json: { current_password: nfc, new_password: 'Ångström units, decomposed'.normalize('NFD') },
    })
    expect(res.status).toBe(204)
    const login = await t.request('/api/auth/login', {
      method: 'POST',
      json: { email: a.email, password: 'Ångström units, decomposed'.normalize('NFC') },
    })
    expect(login.status).toBe(200)
  })

  test('the length limit counts characters as the user sees them: 128 composed characters are accepted in either form', async () => {
    const password = 'é'.repeat(128)
    const res = await t.request('/api/auth/register', {
      method: 'POST',
      json: { email: uniqueEmail(), password: password.normalize('NFD'), name: 'Long' },
    })
    expect(res.status).toBe(201)
  })

  test('an account whose hash was made from a decomposed password before normalisation still logs in', async () => {
    const a = await register(t)
    // A hash of the raw decomposed text, as stored before passwords were normalised.
    await sqlRun(t.storage, 'UPDATE users SET password_hash = $1 WHERE id = $2', [
      await Bun.password.hash(nfd, { algorithm: 'argon2id', memoryCost: 1024, timeCost: 1 }),
      a.user.id,
    ])
    expect((await t.request('/api/auth/login', { method: 'POST', json: { email: a.email, password: nfd } })).status).toBe(200)
    await problem(
      await t.request('/api/auth/login', { method: 'POST', json: { email: a.email, password: 'not the password at all' } }),
      401,
      'invalid_credentials',
    )
  })
})
