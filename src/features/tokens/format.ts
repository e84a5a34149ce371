// Personal access token format (contract section 3), GitHub-style so secret scanners can
// recognise a token and check it offline:
//   plib_pat_ + 30 random base62 characters + 6-character checksum
// The checksum is the CRC32 of the 30 random characters, in base62 (0-9A-Za-z), left-padded with 0.
import { createHash, randomBytes } from 'node:crypto'

export const PAT_PREFIX = 'plib_pat_'
export const PAT_RANDOM_LENGTH = 30
export const PAT_CHECKSUM_LENGTH = 6
export const PAT_LENGTH = PAT_PREFIX.length + PAT_RANDOM_LENGTH + PAT_CHECKSUM_LENGTH

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const BASE62_ONLY = /^[0-9A-Za-z]+$/

export function toBase62(value: number, width: number): string {
  let out = ''
  let n = value
  do {
    out = BASE62[n % 62] + out
    n = Math.floor(n / 62)
  } while (n > 0)
  return out.padStart(width, '0')
}

export function checksum(random: string): string {
  return toBase62(Bun.hash.crc32(random), PAT_CHECKSUM_LENGTH)
}

/** 30 characters from a CSPRNG; bytes ≥ 248 are dropped so every character is equally likely. */
function randomBase62(length: number): string {
  let out = ''
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62]
    }
  }
  return out
}

export function generatePat(): string {
  const random = randomBase62(PAT_RANDOM_LENGTH)
  return PAT_PREFIX + random + checksum(random)
}

/** Shape and checksum only: a token that fails here is refused without touching the database. */
export function isWellFormedPat(token: string): boolean {
  if (token.length !== PAT_LENGTH || !token.startsWith(PAT_PREFIX)) return false
  const body = token.slice(PAT_PREFIX.length)
  if (!BASE62_ONLY.test(body)) return false
  const random = body.slice(0, PAT_RANDOM_LENGTH)
  return checksum(random) === body.slice(PAT_RANDOM_LENGTH)
}

export const looksLikePat = (token: string) => token.startsWith(PAT_PREFIX)

/** Only this digest is stored; the secret itself is shown once, at creation. */
export function hashPat(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}
