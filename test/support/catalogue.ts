// Catalogue content for black-box tests, loaded through the real importer.
import { join } from 'node:path'
import { loadDemoCatalogueIfEmpty } from '../../src/features/catalogue'
import { importCatalogueData } from '../../src/features/catalogue/import/json'
import { importPaths } from '../../src/features/catalogue/import/run'
import type { TestApp } from './app'
import { sqlRows } from './sql'

export { setTier } from './app'

export const FIXTURES = join(import.meta.dir, '..', 'fixtures')

/** The demo catalogue plus test/fixtures/catalogue-good.json (marketing, coding, 3 prompts, 1 skill). */
export async function loadTestCatalogue(t: TestApp): Promise<void> {
  await loadDemoCatalogueIfEmpty(t.services.catalogue, t.log)
  const [report] = importPaths(t.services.catalogue.db, [join(FIXTURES, 'catalogue-good.json')])
  if (report!.errors.length > 0) throw new Error(JSON.stringify(report!.errors))
}

/** Imports extra records (the catalogue format) and fails loudly on any error. */
export function importRecords(t: TestApp, records: { categories?: unknown[]; prompts?: unknown[]; skills?: unknown[] }): void {
  const report = importCatalogueData(t.services.catalogue.db, { format: 'promptlib-catalogue', version: 1, ...records }, { file: 'test' })
  if (report.errors.length > 0) throw new Error(JSON.stringify(report.errors))
}

export const promptIds = async (t: TestApp): Promise<string[]> => (await sqlRows<{ id: string }>(t.storage, 'SELECT id FROM prompts ORDER BY seq')).map((r) => r.id)
