// The usage port: daily counters and request-rate windows, atomic on every engine.
import type { Tx } from '../../db/storage'
import type { Metric } from './quota'

export interface CounterKey {
  subject: string
  metric: Metric
  /** UTC day, YYYY-MM-DD */
  day: string
}

export type TakeOutcome =
  /** a unit was taken; `used` counts it */
  | { outcome: 'counted'; used: number }
  /** the item was already counted today: free */
  | { outcome: 'repeat'; used: number }
  /** the limit is reached; nothing changed */
  | { outcome: 'refused'; used: number }

export interface UsageStore {
  /**
   * Takes one unit, atomically, across concurrent requests and instances: the counter is raised
   * only while below `limit` (null = unlimited, still counted); with an `item`, the same item
   * twice in a day counts once.
   */
  take(key: CounterKey, limit: number | null, item?: string, tx?: Tx): Promise<TakeOutcome>
  /** Gives one unit back (never below zero). */
  refund(key: CounterKey, tx?: Tx): Promise<void>
  used(key: CounterKey, tx?: Tx): Promise<number>
  /** What a take would meet, changing nothing: the count, and whether `item` was already counted today. */
  peek(key: CounterKey, item?: string): Promise<{ used: number; repeat: boolean }>
  /** Every metric's count for one subject and day. */
  usedOn(subject: string, day: string): Promise<Partial<Record<Metric, number>>>
  /** Counts one hit in the fixed window starting at `windowStart` (ms); returns the window's count. */
  hit(key: string, windowStart: number): Promise<number>
  forgetSubject(subject: string, tx?: Tx): Promise<void>
  /** Drops counters of days before `keepFromDay` and windows that started before `windowsBefore`. */
  prune(keepFromDay: string, windowsBefore: number): Promise<void>
}
