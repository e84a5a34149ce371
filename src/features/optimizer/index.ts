// TEMPORARY shim (two-engines conversion): the optimizer still runs on the SQLite write
// connection directly; its port and adapters replace this.
import type { Config } from '../../config'
import type { Job } from '../../db/jobs'
import type { Storage } from '../../db/storage'
import { notYetOnPostgres } from '../not-yet'
import type { Logger } from '../../log'
import type { UsageService } from '../usage'
import { createBuiltinEngine } from './engines/builtin'
import { createOpenAiEngine } from './engines/openai'
import { sweepDeadInstances, sweepStaleOptimizations } from './history'
import { currentProcess, HEARTBEAT_EVERY_MS, heartbeat, unregisterInstance } from './instances'
import { createOptimizer as legacyOptimizer } from './service'

export { optimizerRoutes } from './routes'

export interface OptimizerDeps {
  storage: Storage
  usage: UsageService
  log: Logger
  config: Config
  shutdown: AbortSignal
  /** register this process and sweep dead ones (servers); tests without a server leave it off */
  registerInstance?: boolean
}

export function createOptimizer({ storage, log, config, shutdown, registerInstance = false }: OptimizerDeps) {
  if (storage.engine !== 'sqlite') {
    const noop = async () => {}
    return notYetOnPostgres<ReturnType<typeof legacyOptimizer> & { jobs: Job[]; registerProcess(): Promise<void>; unregisterProcess(): Promise<void> }>('the optimizer', {
      jobs: [],
      registerProcess: noop,
      unregisterProcess: noop,
    })
  }
  const db = storage.writer
  const instance = registerInstance ? currentProcess() : null
  const optimizer = legacyOptimizer({
    db,
    log,
    // The built-in engine's JIT warm-up is left to serve.ts, after listen, so start-up stays fast.
    engine: config.optimizer ? createOpenAiEngine(config.optimizer) : createBuiltinEngine({ warmUp: false }),
    pingIntervalMs: config.optimizerStream.pingIntervalMs,
    maxOpenStreamsPerUser: config.optimizerStream.maxOpenStreamsPerUser,
    maxStreamMs: config.optimizerStream.maxStreamMs,
    shutdown,
    instanceId: instance?.id,
  })
  // This process's registration and heartbeat; with each beat, the optimizer streams that a dead
  // process (a previous run of this one, or another instance) left `running` are ended.
  const beat = async () => {
    if (!instance) return
    heartbeat(db, instance)
    const ended = sweepDeadInstances(db, instance)
    if (ended > 0) log.warn('optimizer streams of a dead server process ended', { count: ended })
  }
  const jobs: Job[] = [
    { name: 'optimizer-heartbeat', everyMs: HEARTBEAT_EVERY_MS, run: beat },
    // `running` rows older than any stream can live, whatever their owner (the last resort)
    { name: 'optimizer-stale-rows', everyMs: 60 * 60 * 1000, run: async () => sweepStaleOptimizations(db) },
  ]
  return {
    ...optimizer,
    jobs,
    registerProcess: beat,
    async unregisterProcess() {
      if (instance) unregisterInstance(db, instance.id)
    },
  }
}

export type OptimizerService = ReturnType<typeof createOptimizer>
