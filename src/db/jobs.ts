// Periodic jobs the features declare (pruning, sweeps): run once at start, then every
// `everyMs`. On PostgreSQL a job runs on one instance at a time (a transaction-scoped advisory
// lock named after the job; an instance that cannot take it skips that round).
import { sql } from 'drizzle-orm'
import type { Logger } from '../log'
import type { Storage } from './storage'

export interface Job {
  name: string
  everyMs: number
  run(): Promise<unknown>
}

async function runExclusively(storage: Storage, job: Job): Promise<boolean> {
  if (storage.engine === 'sqlite') {
    await job.run()
    return true
  }
  return storage.db.transaction(async (tx) => {
    const [row] = (await tx.execute(sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${`job:${job.name}`}, 0)) AS ok`)) as unknown as {
      ok: boolean
    }[]
    if (!row?.ok) return false
    await job.run()
    return true
  })
}

export function startJobs(storage: Storage, jobs: Job[], log: Logger): { stop(): void; runAll(): Promise<void> } {
  const timers: ReturnType<typeof setInterval>[] = []
  const once = async (job: Job) => {
    try {
      const ran = await runExclusively(storage, job)
      if (!ran) log.debug('job skipped: another instance runs it', { job: job.name })
    } catch (error) {
      log.error('job failed', { job: job.name, error })
    }
  }
  for (const job of jobs) {
    const timer = setInterval(() => void once(job), job.everyMs)
    timer.unref()
    timers.push(timer)
  }
  return {
    stop: () => timers.forEach(clearInterval),
    runAll: async () => {
      for (const job of jobs) await once(job)
    },
  }
}
