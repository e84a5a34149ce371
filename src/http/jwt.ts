// HS256 JSON Web Tokens, written out rather than taken from @elysiajs/jwt: the contract needs
// to tell an expired token (`token_expired`) from a forged one (`invalid_token`), and the
// per-user not-before time needs control of `iat`; the plugin's verify() answers only
// true/false and always stamps iat with the wall clock. Synchronous HMAC also keeps the
// hot path of every authenticated request short. Every `alg` but HS256 is refused.
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto'

export const JWT_LIFETIME_SECONDS = 7 * 24 * 60 * 60

/**
 * How far in the future a token's `iat` may be. Our own tokens are stamped up to a second ahead
 * (a login right after a password change waits for the user's not-before second), and instances
 * behind a load balancer may disagree on the time by a few seconds; a minute covers both. A token
 * issued later than that was not issued by this service as it runs, and it would outlive the
 * not-before time that revokes a user's older tokens.
 */
export const MAX_CLOCK_SKEW_SECONDS = 60

export interface JwtClaims {
  user_id: string
  email: string
  iat: number
  exp: number
}

export type JwtResult = { ok: true; claims: JwtClaims } | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired' | 'issued_in_future' }

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')
const BASE64URL = /^[A-Za-z0-9_-]+$/

function decodeJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Verified tokens are remembered (signature checks are pure), up to this many at once. */
const VERIFIED_CACHE_SIZE = 10_000

export class JwtCodec {
  private readonly key: KeyObject
  private readonly verified = new Map<string, JwtClaims>()

  constructor(secret: string) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'))
  }

  private signature(signingInput: string): Buffer {
    return createHmac('sha256', this.key).update(signingInput).digest()
  }

  /** `issuedAt` may be set (it must not precede the user's not-before time). */
  sign(subject: { user_id: string; email: string }, issuedAt = Math.floor(Date.now() / 1000)): string {
    const claims: JwtClaims = { user_id: subject.user_id, email: subject.email, iat: issuedAt, exp: issuedAt + JWT_LIFETIME_SECONDS }
    const input = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`
    return `${input}.${this.signature(input).toString('base64url')}`
  }

  verify(token: string, now = Math.floor(Date.now() / 1000)): JwtResult {
    const known = this.verified.get(token)
    if (known) return now >= known.exp ? { ok: false, reason: 'expired' } : { ok: true, claims: known }
    const result = this.verifyUncached(token, now)
    if (result.ok) {
      if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.clear()
      this.verified.set(token, result.claims)
    }
    return result
  }

  private verifyUncached(token: string, now: number): JwtResult {
    const parts = token.split('.')
    if (parts.length !== 3) return { ok: false, reason: 'malformed' }
    const [headerPart, payloadPart, signaturePart] = parts as [string, string, string]
    if (!BASE64URL.test(headerPart) || !BASE64URL.test(payloadPart) || !BASE64URL.test(signaturePart)) {
      return { ok: false, reason: 'malformed' }
    }
    const header = decodeJson(headerPart)
    // Only HS256, and no header parameter that would change how the token is read.
    if (!isObject(header) || header.alg !== 'HS256' || 'crit' in header || 'b64' in header) {
      return { ok: false, reason: 'bad_signature' }
    }
    // Compared as text, in its one canonical spelling: decoding first would accept other
    // spellings of the same bytes (the last character's unused low bits are ignored by a decoder).
    const expected = Buffer.from(this.signature(`${headerPart}.${payloadPart}`).toString('base64url'))
    const given = Buffer.from(signaturePart)
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad_signature' }

    const payload = decodeJson(payloadPart)
    if (
      !isObject(payload) ||
      typeof payload.user_id !== 'string' ||
      typeof payload.email !== 'string' ||
      !Number.isSafeInteger(payload.exp) ||
      !Number.isSafeInteger(payload.iat)
    ) {
      return { ok: false, reason: 'malformed' }
    }
    const claims = payload as unknown as JwtClaims
    if (claims.iat > now + MAX_CLOCK_SKEW_SECONDS) return { ok: false, reason: 'issued_in_future' }
    if (now >= claims.exp) return { ok: false, reason: 'expired' }
    return { ok: true, claims }
  }
}
