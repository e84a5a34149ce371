// The mail port: the outbox rows and the claims workers take on them.
import type { Tx } from '../../db/storage'

export type MailStatus = 'pending' | 'sending' | 'sent' | 'failed'

export interface OutboxRecord {
  id: string
  dedupeKey: string
  userId: string | null
  toAddress: string
  subject: string
  bodyText: string
  status: MailStatus
  attempts: number
  nextAttemptAt: Date
  leaseUntil: Date | null
  claimToken: string | null
  lastError: string | null
  createdAt: Date
  sentAt: Date | null
}

export interface MailStore {
  /** false when a message with the same dedupe key is already queued (or sent). */
  insert(message: OutboxRecord, tx?: Tx): Promise<boolean>
  /**
   * Claims up to `limit` messages due at `now`: pending ones whose next attempt has come, and
   * ones still `sending` whose lease lapsed (their worker died). Each becomes `sending` with this
   * lease and token, attempts + 1. Atomic: concurrent workers, in this process or another
   * instance, never claim the same row.
   */
  claim(now: Date, leaseUntil: Date, token: string, limit: number): Promise<OutboxRecord[]>
  /** sent, if the claim is still this token's; false when another worker took the row over. */
  markSent(id: string, token: string, now: Date): Promise<boolean>
  /** Back to pending until `retryAt`, or `failed` (given up) when retryAt is null; same token rule. */
  markUnsent(id: string, token: string, retryAt: Date | null, error: string): Promise<boolean>
  /** Deletes messages sent or given up before `before`. */
  prune(before: Date): Promise<void>
}
