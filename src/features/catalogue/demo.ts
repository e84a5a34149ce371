// The built-in demo catalogue (embedded in the binary through the JSON import), loaded on start
// when the catalogue is empty, through the same importer as `promptlib import`, in one transaction.
import type { Db } from '../../db/client'
import type { Logger } from '../../log'
import demo from './demo/demo-catalogue.json'
import { importCatalogueData } from './import/json'
import { createCatalogueStore } from './store'

export function loadDemoCatalogueIfEmpty(db: Db, log: Logger): boolean {
  if (!createCatalogueStore(db).isEmpty()) return false
  const report = importCatalogueData(db, demo, { file: 'demo-catalogue.json' })
  if (report.errors.length > 0) {
    log.error('the demo catalogue did not load', { errors: report.errors.map((e) => e.message).slice(0, 5) })
    return false
  }
  log.info('demo catalogue loaded', { records: report.created })
  return true
}
