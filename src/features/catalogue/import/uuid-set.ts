// The prompt ids an import has seen in one file, with the line of each: duplicates are found in a
// file of any size. A UUID is kept as four 32-bit words (plus its line) in one open-addressing
// table, about 40 bytes per id where a Set of strings takes a hundred or more (1,000,000 prompts:
// 40 MB instead of 100+ MB of an import's memory).

const WORDS = 5 // four words of the UUID, then the line
const EMPTY_LINE = 0 // lines start at 1; a free slot holds 0

function words(uuid: string): [number, number, number, number] {
  const hex = uuid.replaceAll('-', '')
  return [
    Number.parseInt(hex.slice(0, 8), 16) >>> 0,
    Number.parseInt(hex.slice(8, 16), 16) >>> 0,
    Number.parseInt(hex.slice(16, 24), 16) >>> 0,
    Number.parseInt(hex.slice(24, 32), 16) >>> 0,
  ]
}

export class UuidSet {
  private slots = new Uint32Array(1024 * WORDS)
  private count = 0

  get size(): number {
    return this.count
  }

  /** Adds a UUID seen on `line` (≥ 1); returns the line it was seen on before, or null. */
  add(uuid: string, line: number): number | null {
    if ((this.count + 1) * 2 > this.slots.length / WORDS) this.grow()
    const w = words(uuid)
    const at = this.find(w)
    const seen = this.slots[at + 4]!
    if (seen !== EMPTY_LINE) return seen
    this.slots.set([...w, Math.max(1, line)], at)
    this.count++
    return null
  }

  /** The slot holding `w`, or the free slot where it belongs (linear probing). */
  private find(w: [number, number, number, number]): number {
    const s = this.slots
    const capacity = s.length / WORDS
    // The UUID's own bits are well mixed (random or hashed); a multiply spreads sequential ones.
    for (let slot = (Math.imul(w[3] ^ w[1], 0x9e3779b1) >>> 0) % capacity; ; slot = (slot + 1) % capacity) {
      const at = slot * WORDS
      if (s[at + 4] === EMPTY_LINE || (s[at] === w[0] && s[at + 1] === w[1] && s[at + 2] === w[2] && s[at + 3] === w[3])) return at
    }
  }

  private grow(): void {
    const old = this.slots
    this.slots = new Uint32Array(old.length * 2)
    for (let at = 0; at < old.length; at += WORDS) {
      if (old[at + 4] === EMPTY_LINE) continue
      const w: [number, number, number, number] = [old[at]!, old[at + 1]!, old[at + 2]!, old[at + 3]!]
      this.slots.set(old.subarray(at, at + WORDS), this.find(w))
    }
  }
}
