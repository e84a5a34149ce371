// Catalogue content for black-box tests, loaded through the real importer (either engine).
import { join } from 'node:path'
import type { TestApp } from './app'
import { sqlRows } from './sql'

export { setTier } from './app'

export const FIXTURES = join(import.meta.dir, '..', 'fixtures')

/** The demo catalogue plus test/fixtures/catalogue-good.json (marketing, coding, 3 prompts, 1 skill). */
export async function loadTestCatalogue(t: TestApp): Promise<void> {
  await t.services.catalogue.loadDemoIfEmpty(t.log)
  const [report] = await t.services.catalogue.importPaths([join(FIXTURES, 'catalogue-good.json')])
  if (report!.errors.length > 0) throw new Error(JSON.stringify(report!.errors))
}

/** Imports extra records (the catalogue format) and fails loudly on any error. */
export async function importRecords(t: TestApp, records: { categories?: unknown[]; prompts?: unknown[]; skills?: unknown[] }): Promise<void> {
  const report = await t.services.catalogue.importCatalogueData({ format: 'promptlib-catalogue', version: 1, ...records }, { file: 'test' })
  if (report.errors.length > 0) throw new Error(JSON.stringify(report.errors))
}

export const promptIds = async (t: TestApp): Promise<string[]> =>
  (await sqlRows<{ id: string }>(t.storage, 'SELECT id FROM prompts ORDER BY seq')).map((r) => r.id)

/** A prompt's favorite_count as stored. */
export const favoriteCount = async (t: TestApp, id: string): Promise<number> =>
  Number((await sqlRows<{ n: number }>(t.storage, 'SELECT favorite_count AS n FROM prompts WHERE id = $1', [id]))[0]?.n)

/** Rows of a table. */
export const countRows = async (t: Pick<TestApp, 'storage'>, table: string): Promise<number> =>
  Number((await sqlRows<{ n: number }>(t.storage, `SELECT count(*) AS n FROM ${table}`))[0]?.n)
