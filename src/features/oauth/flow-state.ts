// What a sign-in carries from its start to its callback: the `state`, the PKCE verifier and the
// page to return to. It travels in a cookie, sealed with AES-256-GCM under a key derived from
// the JWT secret: nobody can read the verifier or forge a state, and any instance that shares
// the secret can finish a flow another instance started (nothing is kept in memory or the database).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto'

/** How long a started sign-in may take (contract section 4: 10 minutes); also the cookie's Max-Age. */
export const FLOW_LIFETIME_SECONDS = 10 * 60

export interface FlowState {
  state: string
  codeVerifier: string
  /** a path on the frontend's origin, or null */
  redirect: string | null
  /** Unix seconds */
  expiresAt: number
}

const IV_BYTES = 12
const TAG_BYTES = 16
const BASE64URL = /^[A-Za-z0-9_-]+$/

export class FlowSealer {
  private readonly key: Buffer

  constructor(jwtSecret: string) {
    // A key of its own: a sealed flow is never a valid JWT signature, and the reverse.
    this.key = Buffer.from(hkdfSync('sha256', Buffer.from(jwtSecret, 'utf8'), 'promptlib', 'oauth flow state v1', 32))
  }

  /** `provider` is authenticated with the payload: a flow started for one slot cannot finish at the other. */
  seal(provider: string, flow: FlowState): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.key, iv)
    cipher.setAAD(Buffer.from(provider))
    const payload = JSON.stringify({ s: flow.state, v: flow.codeVerifier, r: flow.redirect, x: flow.expiresAt })
    const body = Buffer.concat([cipher.update(payload, 'utf8'), cipher.final()])
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')
  }

  /** The flow, or null when the value is missing, forged, damaged, for the other slot, or expired. */
  open(provider: string, sealed: string | undefined, now = Math.floor(Date.now() / 1000)): FlowState | null {
    if (!sealed || sealed.length > 4096 || !BASE64URL.test(sealed)) return null
    const bytes = Buffer.from(sealed, 'base64url')
    if (bytes.length <= IV_BYTES + TAG_BYTES) return null
    let payload: unknown
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES))
      decipher.setAAD(Buffer.from(provider))
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
      const text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8')
      payload = JSON.parse(text)
    } catch {
      return null
    }
    const p = payload as { s?: unknown; v?: unknown; r?: unknown; x?: unknown }
    if (typeof p.s !== 'string' || typeof p.v !== 'string' || (p.r !== null && typeof p.r !== 'string') || typeof p.x !== 'number') return null
    if (now >= p.x) return null
    return { state: p.s, codeVerifier: p.v, redirect: p.r, expiresAt: p.x }
  }
}

/** The callback's `state` against the flow's, in constant time. */
export function sameState(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false
  const a = Buffer.from(expected)
  const b = Buffer.from(given)
  return a.length === b.length && timingSafeEqual(a, b)
}
