// Advisory lock keys (pg_advisory_lock takes a bigint): one per purpose, fixed, so every
// instance of the same version agrees on them. Per-row locks hash their key inside PostgreSQL
// (hashtextextended) in the adapters.
export const LOCKS = {
  migrations: 7_141_001,
  demoCatalogue: 7_141_002,
  /** periodic jobs add their own small offset (db/jobs.ts) */
  jobsBase: 7_142_000,
} as const
