// Usage: daily quotas and request-rate limits, shared by every feature that meters.
import type { Storage } from '../../db/storage'
import { createUsageService, type UsageService } from './service'
import { sqliteUsageStore } from './store.sqlite'
import { pgUsageStore } from './store.pg'

export * from './quota'
export type { ConsumeRequest, ConsumeResult, UsageService } from './service'

export function createUsage(storage: Storage): UsageService {
  return createUsageService(storage.engine === 'sqlite' ? sqliteUsageStore(storage) : pgUsageStore(storage))
}
