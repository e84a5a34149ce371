// One writer at a time in this process. SQLite has a single write lock per database anyway;
// holding it here, around both synchronous write transactions and asynchronous ones that
// await between statements, guarantees no other request's statement ever runs inside an open
// transaction on the write connection (it would commit or roll back with it).
export class WriteLock {
  private held = false
  private readonly waiting: (() => void)[] = []

  /** Resolves when the lock is this caller's; uncontended, it is taken at once. */
  acquire(): Promise<void> {
    if (!this.held) {
      this.held = true
      return Promise.resolve()
    }
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  release(): void {
    const next = this.waiting.shift()
    if (next) next()
    else this.held = false
  }

  get queued(): number {
    return this.waiting.length
  }
}
