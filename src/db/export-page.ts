// An export reads in pages bounded by rows and by characters (a catalogue's texts may be large):
// which of the next rows fit, given each one's size.

/** The seqs of the leading rows whose sizes fit `limits.chars` together; always at least one row. */
export function rowsThatFit(sizes: { seq: number; chars: number }[], limits: { chars: number }): number[] {
  const seqs: number[] = []
  let chars = 0
  for (const r of sizes) {
    if (seqs.length > 0 && chars + r.chars > limits.chars) break
    chars += r.chars
    seqs.push(r.seq)
  }
  return seqs
}
