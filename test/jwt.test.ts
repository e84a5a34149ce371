// HS256 only; every other algorithm, key or shape refused; expiry exact to the second.
import { describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { JwtCodec, JWT_LIFETIME_SECONDS, MAX_CLOCK_SKEW_SECONDS } from '../src/http/jwt'
import { makeTestApp, problem, register, TEST_JWT_SECRET } from './support/app'

const SECRET = 'unit-test-secret-unit-test-secret-0123456789'
const codec = new JwtCodec(SECRET)
const subject = { user_id: 'u1', email: 'a@example.com' }
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')

function forge(header: object, payload: object, secret = SECRET, alg = 'sha256') {
  const input = `${b64(header)}.${b64(payload)}`
  return `${input}.${createHmac(alg, secret).update(input).digest('base64url')}`
}

describe('JwtCodec', async () => {
  const now = Math.floor(Date.now() / 1000)
  const claims = { ...subject, iat: now, exp: now + 60 }

  test('round trip', () => {
    const token = codec.sign(subject, now)
    expect(codec.verify(token, now)).toEqual({ ok: true, claims: { ...subject, iat: now, exp: now + JWT_LIFETIME_SECONDS } })
  })

  test('expired exactly at exp, valid one second before', () => {
    const token = codec.sign(subject, now - JWT_LIFETIME_SECONDS)
    expect(codec.verify(token, now - 1).ok).toBe(true)
    expect(codec.verify(token, now)).toEqual({ ok: false, reason: 'expired' })
    // a fresh codec (no cache) agrees
    expect(new JwtCodec(SECRET).verify(token, now)).toEqual({ ok: false, reason: 'expired' })
  })

  test('another key → bad signature', () => {
    const other = new JwtCodec('another-secret-another-secret-0123456789')
    expect(codec.verify(other.sign(subject), now)).toEqual({ ok: false, reason: 'bad_signature' })
  })

  test('alg none, HS512, RS256 are refused even when the bytes are "right"', () => {
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`
    expect(codec.verify(none, now).ok).toBe(false)
    const noneNoDot = `${b64({ alg: 'none' })}.${b64(claims)}`
    expect(codec.verify(noneNoDot, now).ok).toBe(false)
    expect(codec.verify(forge({ alg: 'HS512', typ: 'JWT' }, claims, SECRET, 'sha512'), now)).toEqual({ ok: false, reason: 'bad_signature' })
    // HS256 bytes under a header that claims another alg
    expect(codec.verify(forge({ alg: 'RS256', typ: 'JWT' }, claims), now)).toEqual({ ok: false, reason: 'bad_signature' })
    expect(codec.verify(forge({ alg: 'hs256' }, claims), now).ok).toBe(false)
    expect(codec.verify(forge({ alg: 'HS256', crit: ['b64'], b64: false }, claims), now).ok).toBe(false)
  })

  test('a correctly signed token with wrong claim types is malformed', () => {
    expect(codec.verify(forge({ alg: 'HS256' }, { ...claims, exp: String(claims.exp) }), now)).toEqual({ ok: false, reason: 'malformed' })
    expect(codec.verify(forge({ alg: 'HS256' }, { ...claims, user_id: 5 }), now)).toEqual({ ok: false, reason: 'malformed' })
    expect(codec.verify(forge({ alg: 'HS256' }, { ...claims, exp: 1.5 }), now)).toEqual({ ok: false, reason: 'malformed' })
    expect(codec.verify(forge({ alg: 'HS256' }, [1, 2]), now)).toEqual({ ok: false, reason: 'malformed' })
  })

  test('tampering with the payload breaks the signature', () => {
    const token = codec.sign(subject, now)
    const [h, , s] = token.split('.')
    const tampered = `${h}.${b64({ ...subject, user_id: 'admin', iat: now, exp: now + JWT_LIFETIME_SECONDS })}.${s}`
    expect(codec.verify(tampered, now)).toEqual({ ok: false, reason: 'bad_signature' })
  })

  test('a signature spelled another way (same bytes, other last character) is refused', () => {
    const token = codec.sign(subject, now)
    const signature = token.slice(token.lastIndexOf('.') + 1)
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    // 32 bytes take 43 characters; the last one carries 4 bits, so 4 characters decode alike
    const sameBytes = [...alphabet].filter(
      (c) => c !== signature.at(-1) && Buffer.from(signature.slice(0, -1) + c, 'base64url').equals(Buffer.from(signature, 'base64url')),
    )
    expect(sameBytes.length).toBe(3)
    for (const c of alphabet) {
      if (c === signature.at(-1)) continue
      const tampered = token.slice(0, -1) + c
      expect({ c, result: new JwtCodec(SECRET).verify(tampered, now) }).toEqual({ c, result: { ok: false, reason: 'bad_signature' } })
    }
    // padding or trailing junk is not the canonical spelling either
    expect(codec.verify(`${token}=`, now).ok).toBe(false)
    expect(codec.verify(`${token}A`, now).ok).toBe(false)
  })

  test('iat in the future: up to the allowed clock skew is fine, beyond it is refused', () => {
    expect(MAX_CLOCK_SKEW_SECONDS).toBe(60)
    const at = (iat: number) => forge({ alg: 'HS256', typ: 'JWT' }, { ...subject, iat, exp: iat + JWT_LIFETIME_SECONDS })
    expect(codec.verify(at(now + 1), now).ok).toBe(true)
    expect(codec.verify(at(now + 60), now).ok).toBe(true)
    expect(codec.verify(at(now + 61), now)).toEqual({ ok: false, reason: 'issued_in_future' })
    expect(codec.verify(at(now + 10 * 365 * 86400), now)).toEqual({ ok: false, reason: 'issued_in_future' })
    // and it stays refused however often it is presented (nothing cached)
    expect(codec.verify(at(now + 61), now)).toEqual({ ok: false, reason: 'issued_in_future' })
  })

  test('garbage', () => {
    for (const junk of ['', 'a', 'a.b', 'a.b.c.d', '...', 'a b.c.d', '€.€.€', 'eyJ.eyJ.!!!']) {
      expect(codec.verify(junk, now).ok).toBe(false)
    }
  })
})

describe('through the API', async () => {
  const t = await makeTestApp()
  const me = (token: string) => t.request('/api/user/me', { token })

  test('a tampered last character and a future iat → 401 invalid_token', async () => {
    const { token, user } = await register(t)
    expect((await me(token)).status).toBe(200)
    const signature = token.slice(token.lastIndexOf('.') + 1)
    const twin = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].find(
      (c) => c !== signature.at(-1) && Buffer.from(signature.slice(0, -1) + c, 'base64url').equals(Buffer.from(signature, 'base64url')),
    )!
    await problem(await me(token.slice(0, -1) + twin), 401, 'invalid_token')

    const now = Math.floor(Date.now() / 1000)
    const future = new JwtCodec(TEST_JWT_SECRET).sign({ user_id: user.id, email: user.email }, now + 3600)
    await problem(await me(future), 401, 'invalid_token')
  })
})
