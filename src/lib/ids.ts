// cuid2 ids for every record that has one (users, tokens, history entries, payments, e-mails),
// by the library's own algorithm (@paralleldrive/cuid2 3.x: a random letter, then base 36 of
// SHA3-512(time + salt + counter + fingerprint), 24 characters), with Bun's native SHA3 and
// BigInt. The library hashes in JavaScript and converts through bignumber.js: ~0.15 ms and a
// burst of garbage per id (6 % of the server's CPU under scripts/load.ts, the webhooks' and the
// outbox's ids). This takes a few microseconds; test/ids.test.ts checks it against the library.

const LENGTH = 24
const FINGERPRINT_LENGTH = 32
const INITIAL_COUNT_MAX = 476_782_367

const randomWords = new Uint32Array(64)
let randomIndex = randomWords.length

/** A uniform float in [0, 1) from the CSPRNG, as cuid2's default `random`. */
function cryptoRandom(): number {
  if (randomIndex === randomWords.length) {
    crypto.getRandomValues(randomWords)
    randomIndex = 0
  }
  return randomWords[randomIndex++]! / 0x1_0000_0000
}

function entropy(length: number, random: () => number): string {
  let out = ''
  while (out.length < length) out += Math.floor(random() * 36).toString(36)
  return out
}

/** base 36 of the SHA3-512 digest read as a big-endian integer, first digit dropped (as cuid2's hash()). */
export function cuidHash(input: string): string {
  const hex = new Bun.CryptoHasher('sha3-512').update(input).digest('hex')
  return BigInt(`0x${hex}`).toString(36).slice(1)
}

/** The counterpart of cuid2's init(): the same options, the same ids for the same inputs. */
export function cuidGenerator({
  random = cryptoRandom,
  counter = Math.floor(random() * INITIAL_COUNT_MAX),
  fingerprint = cuidHash(Object.keys(globalThis).toString() + entropy(FINGERPRINT_LENGTH, random)).substring(0, FINGERPRINT_LENGTH),
}: {
  random?: () => number
  counter?: number
  fingerprint?: string
} = {}): () => string {
  let count = counter
  return () => {
    const letter = String.fromCharCode(97 + Math.floor(random() * 26))
    const time = Date.now().toString(36)
    const input = time + entropy(LENGTH, random) + (count++).toString(36) + fingerprint
    return letter + cuidHash(input).substring(1, LENGTH)
  }
}

/** A new cuid2. */
export const createId = cuidGenerator()
