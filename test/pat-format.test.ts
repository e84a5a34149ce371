// The PAT format of contract section 3, checked against an independent computation.
import { describe, expect, test } from 'bun:test'
import { checksum, generatePat, hashPat, isWellFormedPat, PAT_LENGTH, toBase62 } from '../src/features/tokens/format'

// Reference CRC32 (IEEE 802.3, reflected, polynomial 0xEDB88320), bit by bit.
function crc32Reference(text: string): number {
  let crc = 0xffffffff
  for (const byte of new TextEncoder().encode(text)) {
    crc ^= byte
    for (let i = 0; i < 8; i++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1
  }
  return (crc ^ 0xffffffff) >>> 0
}

describe('PAT format', () => {
  test('base62 with the 0-9A-Za-z alphabet, left-padded', () => {
    expect(toBase62(0, 6)).toBe('000000')
    expect(toBase62(61, 6)).toBe('00000z')
    expect(toBase62(62, 6)).toBe('000010')
    expect(toBase62(0xffffffff, 6)).toBe('4gfFC3')
  })

  test('checksum is the CRC32 of the 30 random characters in base62', () => {
    expect(crc32Reference('123456789')).toBe(0xcbf43926) // the standard check value
    for (const sample of ['123456789', 'abcdefghijABCDEFGHIJ0123456789', 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz']) {
      expect(checksum(sample)).toBe(toBase62(crc32Reference(sample), 6))
    }
  })

  test('generated tokens: prefix, length, base62, valid checksum, all distinct', () => {
    const seen = new Set<string>()
    for (let i = 0; i < 2000; i++) {
      const token = generatePat()
      expect(token).toMatch(/^plib_pat_[0-9A-Za-z]{36}$/)
      expect(token).toHaveLength(PAT_LENGTH)
      const random = token.slice(9, 39)
      expect(token.slice(39)).toBe(toBase62(crc32Reference(random), 6))
      expect(isWellFormedPat(token)).toBe(true)
      seen.add(token)
    }
    expect(seen.size).toBe(2000)
  })

  test('every character of the alphabet appears (no bias towards a subset)', () => {
    const counts = new Map<string, number>()
    for (let i = 0; i < 2000; i++) for (const c of generatePat().slice(9, 39)) counts.set(c, (counts.get(c) ?? 0) + 1)
    expect(counts.size).toBe(62)
    const values = [...counts.values()]
    // 60,000 characters over 62 symbols: about 968 each; a biased generator would be far off
    expect(Math.min(...values)).toBeGreaterThan(800)
    expect(Math.max(...values)).toBeLessThan(1150)
  })

  test('a changed character, a wrong checksum, a wrong prefix or length is refused', () => {
    const token = generatePat()
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'a' ? 'b' : 'a') + s.slice(i + 1)
    expect(isWellFormedPat(flip(token, 12))).toBe(false)
    expect(isWellFormedPat(flip(token, PAT_LENGTH - 1))).toBe(false)
    expect(isWellFormedPat(token.replace('plib_pat_', 'plib_pot_'))).toBe(false)
    expect(isWellFormedPat(token + 'a')).toBe(false)
    expect(isWellFormedPat(token.slice(0, -1))).toBe(false)
    expect(isWellFormedPat(token.slice(0, 20) + '-' + token.slice(21))).toBe(false)
    expect(isWellFormedPat('')).toBe(false)
  })

  test('the stored hash is SHA-256 hex of the whole token', () => {
    const token = generatePat()
    expect(hashPat(token)).toBe(new Bun.CryptoHasher('sha256').update(token).digest('hex'))
    expect(hashPat(token)).not.toContain(token.slice(9))
  })
})
