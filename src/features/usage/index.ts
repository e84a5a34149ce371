// Usage: daily quotas and request-rate limits, shared by every feature that meters.
import type { Storage } from '../../db/storage'
import { createUsageService, type UsageService } from './service'
import { sqliteUsageStore } from './store.sqlite'

export * from './quota'
export type { ConsumeRequest, ConsumeResult, UsageService } from './service'

// Required, not imported: an SQLite server never loads PostgreSQL's adapter (docs/architecture.md).
const pgStore = (): typeof import('./store.pg') => require('./store.pg')

export function createUsage(storage: Storage): UsageService {
  return createUsageService(storage.engine === 'sqlite' ? sqliteUsageStore(storage) : pgStore().pgUsageStore(storage))
}
