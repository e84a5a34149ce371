// The baseline of scripts/bench-search-limit.ts: a bare Bun.serve over bun:sqlite that runs, for
// each request, the statements the server's search runs for the same words (the FTS5 count, the
// ranked head page, the content-only page when the heads do not fill it, the summaries and the
// contents), and answers the JSON the server answered. What is left between the two is ours.
// usage: bun scripts/bench/search-baseline.ts PORT DATABASE_FILE PLAN.json
import { Database } from 'bun:sqlite'
import { readFileSync } from 'node:fs'
import { SEARCH_COUNT_CAP } from '../../src/features/catalogue/model'
import { SEARCH_SQL } from '../../src/features/catalogue/search.sqlite'

export interface SearchPlan {
  /** the FTS5 expression the server builds for the query's words */
  match: string
  limit: number
  headers: [string, string][]
  body: string
}

const [port, file, planFile] = process.argv.slice(2)
const plans = new Map(Object.entries(JSON.parse(readFileSync(planFile!, 'utf8')) as Record<string, SearchPlan>))
const db = new Database(file!, { readonly: true })
const count = db.prepare<{ n: number }, [string, number]>(SEARCH_SQL.countMatches)
const headPage = db.prepare<{ page: string }, [string, number, number]>(SEARCH_SQL.headPage)
const contentOnly = db.prepare<{ seq: number }, [string, string, number, number]>(SEARCH_SQL.contentOnlyPage)

/** The page's prompt ids, in order: the same statements as search.sqlite.ts at offset 0. */
function run(plan: SearchPlan): string[] {
  const total = Math.min(count.get(plan.match, SEARCH_COUNT_CAP)!.n, SEARCH_COUNT_CAP)
  if (total === 0) return []
  const end = Math.min(plan.limit, total)
  const headSeqs = JSON.parse(headPage.get(plan.match, end, 0)!.page) as number[]
  const contentSeqs = headSeqs.length < end ? contentOnly.all(plan.match, plan.match, end - headSeqs.length, 0).map((r) => r.seq) : []
  const seqs = [...headSeqs, ...contentSeqs]
  const rows = db.query<{ seq: number; id: string }, number[]>(SEARCH_SQL.summaries(seqs.length)).all(...seqs)
  if (contentSeqs.length > 0) db.query(SEARCH_SQL.contentStarts(contentSeqs.length)).all(...contentSeqs)
  const ids = new Map(rows.map((r) => [r.seq, r.id]))
  return seqs.map((seq) => ids.get(seq)!)
}

// The same query, checked once: the ids found here are the ids the server answered, in order.
for (const [path, plan] of plans) {
  const served = (JSON.parse(plan.body) as { items: { id: string }[] }).items.map((i) => i.id)
  const found = run(plan)
  if (JSON.stringify(found) !== JSON.stringify(served)) {
    console.error(`baseline: ${path} finds ${found.length} prompts other than the server's ${served.length}`)
    process.exit(1)
  }
}

const responses = new Map([...plans].map(([path, plan]) => [path, { plan, body: Buffer.from(plan.body) }]))
const server = Bun.serve({
  port: Number(port),
  hostname: '127.0.0.1',
  fetch(request) {
    const url = request.url
    const r = responses.get(url.slice(url.indexOf('/', 8)))
    if (!r) return new Response('not planned', { status: 404 })
    run(r.plan)
    return new Response(r.body, { headers: r.plan.headers })
  },
})
console.log(`search baseline listening on ${server.port}`)
