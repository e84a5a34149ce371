// Catalogue content for black-box tests, loaded through the real importer.
import { join } from 'node:path'
import { loadDemoCatalogueIfEmpty } from '../../src/features/catalogue/demo'
import { importCatalogueData } from '../../src/features/catalogue/import/json'
import { importPaths } from '../../src/features/catalogue/import/run'
import type { TestApp } from './app'

export const FIXTURES = join(import.meta.dir, '..', 'fixtures')

/** The demo catalogue plus test/fixtures/catalogue-good.json (marketing, coding, 3 prompts, 1 skill). */
export async function loadTestCatalogue(t: TestApp): Promise<void> {
  await loadDemoCatalogueIfEmpty(t.db, t.log)
  const [report] = importPaths(t.db, [join(FIXTURES, 'catalogue-good.json')])
  if (report!.errors.length > 0) throw new Error(JSON.stringify(report!.errors))
}

/** Imports extra records (the catalogue format) and fails loudly on any error. */
export function importRecords(t: TestApp, records: { categories?: unknown[]; prompts?: unknown[]; skills?: unknown[] }): void {
  const report = importCatalogueData(t.db, { format: 'promptlib-catalogue', version: 1, ...records }, { file: 'test' })
  if (report.errors.length > 0) throw new Error(JSON.stringify(report.errors))
}

export const promptIds = (t: TestApp): string[] =>
  (t.db.$client.query('SELECT id FROM prompts ORDER BY seq').all() as { id: string }[]).map((r) => r.id)

export async function setTier(t: TestApp, userId: string, tier: string): Promise<void> {
  t.db.$client.query('UPDATE users SET tier = ? WHERE id = ?').run(tier, userId)
}
