// The built-in demo catalogue (embedded in the binary through the JSON import), loaded on start
// when the catalogue is empty, through the same importer as `promptlib import`, in one transaction.
import type { Db } from '../../db/sqlite/client'
import type { Logger } from '../../log'
import { createCatalogueStore } from './store'

/** The demo and the importer are loaded only when needed: a server with a catalogue never holds them. */
export async function loadDemoCatalogueIfEmpty(db: Db, log: Logger): Promise<boolean> {
  if (!createCatalogueStore(db).isEmpty()) return false
  const [{ default: demo }, { importCatalogueData }] = await Promise.all([import('./demo/demo-catalogue.json'), import('./import/json')])
  const report = importCatalogueData(db, demo, { file: 'demo-catalogue.json' })
  if (report.errors.length > 0) {
    log.error('the demo catalogue did not load', { errors: report.errors.map((e) => e.message).slice(0, 5) })
    return false
  }
  log.info('demo catalogue loaded', { records: report.created })
  return true
}
