// Records flow into the stores in batches, inside their file's transaction: a batch holds at most
// BATCH_RECORDS records or BATCH_CHARS characters of text, so an import keeps a few megabytes of
// records whatever the size of the file. Keys are unique within a batch, as the ports ask: a
// record whose key is already waiting replaces it (a CSV file's later row with the same title wins,
// and the earlier one is never written, so importing that file again leaves it unchanged).

export const BATCH_RECORDS = 1000
export const BATCH_CHARS = 8_000_000

export class Batch<T, O> {
  private items: T[] = []
  /** key → index in `items` */
  private keys = new Map<string, number>()
  private chars = 0

  constructor(
    private readonly key: (item: T) => string,
    private readonly size: (item: T) => number,
    private readonly write: (items: T[]) => Promise<O[]>,
    private readonly written: (outcome: O) => void,
  ) {}

  async add(item: T): Promise<void> {
    const key = this.key(item)
    const waiting = this.keys.get(key)
    if (waiting !== undefined) {
      this.chars += this.size(item) - this.size(this.items[waiting]!)
      this.items[waiting] = item
    } else {
      this.keys.set(key, this.items.length)
      this.items.push(item)
      this.chars += this.size(item)
    }
    if (this.items.length >= BATCH_RECORDS || this.chars >= BATCH_CHARS) await this.flush()
  }

  async flush(): Promise<void> {
    if (this.items.length === 0) return
    const items = this.items
    this.items = []
    this.keys.clear()
    this.chars = 0
    for (const outcome of await this.write(items)) this.written(outcome)
  }
}
