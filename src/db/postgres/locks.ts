// Advisory lock keys (pg_advisory_lock takes a bigint): one per purpose, fixed, so every
// instance of the same version agrees on them. Per-row locks hash their key inside PostgreSQL
// (hashtextextended) in the adapters.
export const LOCKS = {
  migrations: 7_141_001,
  demoCatalogue: 7_141_002,
  /**
   * Transactions that write prompts (imports), one at a time: two imports would otherwise each
   * add words to prompt_words (its triggers) that the other then waits on, in opposite orders: a
   * deadlock.
   */
  promptWrites: 7_141_003,
  /** periodic jobs add their own small offset (db/jobs.ts) */
  jobsBase: 7_142_000,
} as const
