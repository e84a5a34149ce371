// The optimizer: modes, engines, the optimize stream with its quota and open-stream cap, history,
// and the registry of server processes whose streams it ends when they die.
import type { Config } from '../../config'
import type { Job } from '../../db/jobs'
import type { Storage } from '../../db/storage'
import type { Logger } from '../../log'
import type { UsageService } from '../usage'
import { createBuiltinEngine } from './engines/builtin'
import { createOpenAiEngine } from './engines/openai'
import { createHeartbeat, currentProcess, HEARTBEAT_EVERY_MS } from './instances'
import { createOptimizerService, type OptimizerService } from './service'
import { sqliteOptimizerStore } from './store.sqlite'

export { HistoryItem as HistoryItemSchema } from './model'
export { optimizerRoutes } from './routes'
export { parseOptimizeBody } from './input'
export { PROMPT_MAX_CHARS, TARGET_MODEL_MAX_CHARS } from './model'
export { MODE_IDS, OPTIMIZATION_MODES, type OptimizationMode } from './modes'
export type { OptimizerService } from './service'

// Required, not imported: an SQLite server never loads PostgreSQL's adapter (docs/architecture.md).
const pgStore = (): typeof import('./store.pg') => require('./store.pg')

const HOUR = 60 * 60 * 1000

export interface OptimizerDeps {
  storage: Storage
  usage: Pick<UsageService, 'consume' | 'refund' | 'takeAgain' | 'used'>
  log: Logger
  config: Pick<Config, 'optimizer' | 'optimizerStream'>
  shutdown: AbortSignal
  /** register this process and keep its heartbeat (servers); tests without a server leave it off */
  registerInstance?: boolean
}

export interface Optimizer extends OptimizerService {
  /** the optimizer's periodic work, for db/jobs.ts (on PostgreSQL one instance at a time) */
  jobs: Job[]
  /** registers this process and ends what dead ones left running, before the first request (serve) */
  registerProcess(): Promise<void>
  /** stops the heartbeat and removes the registration, after the last stream ended (serve) */
  unregisterProcess(): Promise<void>
}

export function createOptimizer({ storage, usage, log, config, shutdown, registerInstance = false }: OptimizerDeps): Optimizer {
  const store = storage.engine === 'sqlite' ? sqliteOptimizerStore(storage) : pgStore().pgOptimizerStore(storage)
  const self = currentProcess()
  const service = createOptimizerService({
    store,
    transaction: (fn) => storage.transaction(fn),
    usage,
    log,
    // The built-in engine's JIT warm-up is left to serve.ts, after listen, so start-up stays fast.
    engine: config.optimizer ? createOpenAiEngine(config.optimizer) : createBuiltinEngine({ warmUp: false }),
    maxOpenStreamsPerUser: config.optimizerStream.maxOpenStreamsPerUser,
    maxStreamMs: config.optimizerStream.maxStreamMs,
    shutdown,
    instanceId: registerInstance ? self.id : null,
  })
  const heartbeat = createHeartbeat(store, self, log)
  const sweepDead = async () => {
    const ended = await service.sweepDeadInstances(self)
    if (ended > 0) log.warn('optimizer streams of a dead server process ended', { count: ended })
  }

  return {
    ...service,
    jobs: [
      // the running rows of dead processes, within seconds (any one instance may do it)
      { name: 'optimizer-dead-instances', everyMs: HEARTBEAT_EVERY_MS, run: sweepDead },
      // `running` rows older than any stream can live, whatever their owner (the last resort)
      { name: 'optimizer-stale-rows', everyMs: HOUR, run: () => service.sweepStaleRuns() },
    ],
    async registerProcess() {
      if (!registerInstance) return
      await heartbeat.start()
      // At once, not at the job's next turn (which another instance may hold): a restarted
      // process's own rows must not block its users' streams.
      await sweepDead().catch((error: unknown) => log.error('optimizer sweep of dead processes failed', { error }))
    },
    async unregisterProcess() {
      if (registerInstance) await heartbeat.stop()
    },
  }
}
