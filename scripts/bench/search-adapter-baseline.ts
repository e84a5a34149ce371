// The baseline of scripts/bench-search.ts's latency: a bare Bun.serve that runs, for each request,
// the server's own search adapter (search.sqlite.ts or search.pg.ts: its statements, its driver,
// its pool) for the query's words, and answers the JSON the server answered for them. What is
// left between the two is ours above the database: routing, validation, the edge, the summaries
// and snippets, the JSON. On either engine, from DATA_DIR / DATABASE_URL in the environment.
// usage: bun scripts/bench/search-adapter-baseline.ts PORT PLAN.json
import { readFileSync } from 'node:fs'
import { openStorage } from '../../src/db'
import { SEARCH_COUNT_CAP } from '../../src/features/catalogue/model'
import type { PromptSearch } from '../../src/features/catalogue/search'
import { pgPromptSearch } from '../../src/features/catalogue/search.pg'
import { sqlitePromptSearch } from '../../src/features/catalogue/search.sqlite'
import { type SearchTerms, searchTerms } from '../../src/lib/search/terms'

/** What the server answered for one path, and the query its words came from. */
export interface AdapterPlan {
  q: string
  headers: [string, string][]
  body: string
}

const PAGE = { limit: 20, offset: 0 }

const [port, planFile] = process.argv.slice(2)
const plans = JSON.parse(readFileSync(planFile!, 'utf8')) as Record<string, AdapterPlan>
const { storage } = await openStorage({
  dataDir: process.env.DATA_DIR!,
  databaseUrl: process.env.DATABASE_URL || null,
  sqlite: { lockTimeoutMs: 5000, synchronous: 'normal' },
})
const search: PromptSearch = storage.engine === 'postgres' ? pgPromptSearch(storage) : sqlitePromptSearch(storage)

const prompts = async (terms: SearchTerms) => (await search.search({ terms }, PAGE, SEARCH_COUNT_CAP)).hits.map((h) => h.prompt.id)

const planned = new Map<string, { terms: SearchTerms; headers: [string, string][]; body: Buffer }>()
for (const [path, plan] of Object.entries(plans)) {
  const terms = searchTerms(plan.q)
  if (!terms) continue
  // Checked once: the adapter finds the prompts the server answered, in the same order.
  const served = (JSON.parse(plan.body) as { items: { id: string }[] }).items.map((i) => i.id)
  const found = await prompts(terms)
  if (JSON.stringify(found) !== JSON.stringify(served)) {
    console.error(`adapter baseline: ${path} finds ${found.length} prompts other than the server's ${served.length}`)
    process.exit(1)
  }
  planned.set(path, { terms, headers: plan.headers, body: Buffer.from(plan.body) })
}

const server = Bun.serve({
  port: Number(port),
  hostname: '127.0.0.1',
  async fetch(request) {
    const url = request.url
    const plan = planned.get(url.slice(url.indexOf('/', 8)))
    if (!plan) return new Response('not planned', { status: 404 })
    await search.search({ terms: plan.terms }, PAGE, SEARCH_COUNT_CAP)
    return new Response(plan.body, { headers: plan.headers })
  },
})
process.on('SIGTERM', () => {
  void server.stop(true)
  void storage.close().then(() => process.exit(0))
})
console.log(`search adapter baseline listening on ${server.port}`)
