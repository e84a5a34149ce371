// Record ids: cuid2 by the library's algorithm, with native hashing (src/lib/ids.ts).
import { afterEach, describe, expect, setSystemTime, test } from 'bun:test'
import { init, isCuid } from '@paralleldrive/cuid2'
import { createId, cuidGenerator } from '../src/lib/ids'

/** A seeded generator, so the library and ours draw the same "random" numbers. */
function seeded(seed: number) {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
}

afterEach(() => setSystemTime())

describe('createId', () => {
  test('the same ids as cuid2’s init() for the same random source, counter, fingerprint and clock', () => {
    for (const [seed, counter, time] of [
      [1, 0, 0],
      [42, 123_456, Date.UTC(2026, 10, 22)],
      [7, 476_782_366, Date.UTC(2099, 0, 1, 12, 30)],
    ] as const) {
      setSystemTime(new Date(time))
      const fingerprint = `fp${seed}`.padEnd(32, 'z')
      const library = init({
        random: seeded(seed),
        counter: (() => {
          let c = counter
          return () => c++
        })(),
        fingerprint,
        length: 24,
      })
      const ours = cuidGenerator({ random: seeded(seed), counter, fingerprint })
      for (let i = 0; i < 50; i++) expect(ours()).toBe(library())
    }
  })

  test('24 characters, a letter then [0-9a-z], accepted by cuid2’s isCuid', () => {
    for (let i = 0; i < 1000; i++) {
      const id = createId()
      expect(id).toMatch(/^[a-z][0-9a-z]{23}$/)
      expect(isCuid(id)).toBe(true)
    }
  })

  test('no collisions in 100,000 ids; first letters spread over the alphabet', () => {
    const ids = Array.from({ length: 100_000 }, createId)
    expect(new Set(ids).size).toBe(ids.length)
    expect(new Set(ids.map((id) => id[0])).size).toBe(26)
  })
})
