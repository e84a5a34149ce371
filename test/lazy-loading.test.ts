// A server keeps in memory only what its configuration uses (docs/architecture.md): on SQLite with
// no provider configured, neither PostgreSQL's adapters and driver nor a provider's SDK, nor the MCP SDK before an MCP request, is loaded.
// (drizzle-orm itself loads part of its pg-core: relations.js imports its primary keys.)
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { TEST_ENGINE, tempDir } from './support/app'

describe.skipIf(TEST_ENGINE !== 'sqlite')('modules loaded by an SQLite server with no provider', () => {
  test('no PostgreSQL adapter or driver, no Stripe, nodemailer, Arctic or MCP SDK', () => {
    const run = Bun.spawnSync([process.execPath, join(import.meta.dir, 'support', 'loaded-modules.ts')], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: tempDir(), DEMO_CATALOGUE: 'false' },
    })
    expect(run.stderr.toString()).toBe('')
    const loaded = JSON.parse(run.stdout.toString()) as string[]
    expect(loaded.some((path) => path.includes('/src/app.ts'))).toBe(true) // the list is real
    const unexpected = loaded.filter((path) =>
      /node_modules\/(drizzle-orm\/postgres-js|postgres|stripe|nodemailer|arctic|@modelcontextprotocol|zod|yaml)\/|\.pg\.ts$|oauth\/client\.ts$/.test(
        path,
      ),
    )
    expect(unexpected).toEqual([])
  })
})
