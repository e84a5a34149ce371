// TEMPORARY shim (two-engines conversion): the catalogue still runs on the SQLite write
// connection directly; its port and adapters replace this.
import type { Job } from '../../db/jobs'
import type { Db } from '../../db/sqlite/client'
import type { Storage } from '../../db/storage'
import { notYetOnPostgres } from '../not-yet'
import type { AuthGuard } from '../../http/auth'
import type { UsageService } from '../usage'
import type { Logger } from '../../log'
import { loadDemoCatalogueIfEmpty as legacyDemo } from './demo'
import { catalogueRoutes as legacyRoutes } from './routes'
import { createCatalogue as legacyCatalogue } from './service'


export function createCatalogue({ storage }: { storage: Storage; usage: UsageService }) {
  if (storage.engine !== 'sqlite') return notYetOnPostgres<ReturnType<typeof legacyCatalogue> & { db: Db; jobs: Job[] }>('the catalogue', { jobs: [] })
  const db = storage.writer
  return { ...legacyCatalogue(db), db, jobs: [] as Job[] }
}

export type CatalogueService = ReturnType<typeof createCatalogue>

export function catalogueRoutes({ catalogue, guard }: { catalogue: CatalogueService; usage: UsageService; guard: AuthGuard }) {
  return legacyRoutes({ db: catalogue.db, catalogue, guard })
}

export const loadDemoCatalogueIfEmpty = (catalogue: CatalogueService, log: Logger) => legacyDemo(catalogue.db, log)
