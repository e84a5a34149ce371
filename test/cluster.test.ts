// Three instances on one PostgreSQL behind nginx (round robin): every limit as exact as on one
// SQLite file. Runs on the suite's PostgreSQL pass (bun run test:pg), with Debian's nginx.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { GOOD_PASSWORD, processEnv, tempDir, TEST_ENGINE, uniqueEmail } from './support/app'
import { type Cluster, NGINX, startCluster } from './support/cluster'
import { cliAsync } from './support/process'
import { SseReader } from './support/sse-client'
import { sqlNumber, sqlRun, withStorage } from './support/sql'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

const enabled = TEST_ENGINE === 'postgres' && NGINX !== null

describe.skipIf(!enabled)('a cluster: 3 instances on one PostgreSQL behind nginx', () => {
  let cluster: Cluster
  let env: Record<string, string>

  beforeAll(async () => {
    env = await processEnv()
    cluster = await startCluster(env, 3)
  }, 60_000)
  afterAll(async () => {
    await cluster?.stop()
  })

  async function registerVia(base: string, email = uniqueEmail('cluster')) {
    const res = await fetch(`${base}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: GOOD_PASSWORD, name: 'Cluster User' }),
    })
    if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`)
    const body = (await res.json()) as { access_token: string; user: { id: string } }
    return { token: body.access_token, id: body.user.id, email }
  }

  test('a token one instance issued is accepted by every other (one generated secret, kept in the database)', async () => {
    const [a, b, c] = cluster.instances
    const { token } = await registerVia(a!.url)
    for (const instance of [a, b, c]) {
      const res = await fetch(`${instance!.url}/api/user/me`, { headers: { authorization: `Bearer ${token}` } })
      expect(res.status).toBe(200)
    }
  })

  test('300 concurrent optimizations from 20 free users through the balancer: exactly 60 accepted', async () => {
    const users = await Promise.all(Array.from({ length: 20 }, () => registerVia(cluster.url)))
    const calls = users.flatMap((u) =>
      Array.from({ length: 15 }, async () => {
        const res = await fetch(`${cluster.url}/api/optimizer/optimize`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${u.token}` },
          body: JSON.stringify({ prompt: 'Summarise the attached meeting notes in five bullet points.', mode: 'enhance' }),
        })
        if (res.status !== 200) {
          await res.body?.cancel()
          return res.status
        }
        const events = await new SseReader(res).all()
        return events.at(-1)?.event === 'done' ? 200 : -1
      }),
    )
    const statuses = await Promise.all(calls)
    expect(statuses.filter((s) => s === 200)).toHaveLength(60)
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([])
    await withStorage(env, async (storage) => {
      for (const u of users) {
        expect(await sqlNumber(storage, "SELECT count FROM daily_usage WHERE subject = $1 AND metric = 'optimizations'", [`user:${u.id}`])).toBe(3)
        expect(await sqlNumber(storage, "SELECT count(*) FROM optimization_history WHERE user_id = $1 AND status = 'completed'", [u.id])).toBe(3)
      }
    })
  }, 120_000)

  test('10 concurrent token creations at the limit through the balancer: exactly one', async () => {
    const user = await registerVia(cluster.url)
    await withStorage(env, (storage) => sqlRun(storage, "UPDATE users SET tier = 'starter' WHERE id = $1", [user.id]))
    const statuses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        fetch(`${cluster.url}/api/user/tokens`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}` },
          body: JSON.stringify({ name: `script ${i}` }),
        }).then((r) => r.status),
      ),
    )
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 403)).toHaveLength(9)
  })

  test('an import is visible on every instance within a second', async () => {
    const file = join(tempDir(), 'cluster.json')
    writeFileSync(
      file,
      JSON.stringify({
        format: 'promptlib-catalogue',
        version: 1,
        categories: [{ id: 'cluster-zoo', name: 'Cluster zoo' }],
        prompts: [
          { id: 'c1a57e00-0000-4000-8000-000000000001', title: 'Seen everywhere', category: 'cluster-zoo', content: 'Imported through one process.' },
        ],
      }),
    )
    const imported = await cliAsync(['import', file], env)
    expect(imported.code).toBe(0)
    const done = Date.now()
    const seen = await Promise.all(
      cluster.instances.map(async (instance) => {
        for (;;) {
          const body = (await (await fetch(`${instance.url}/api/categories`)).json()) as { items: { id: string }[] }
          if (body.items.some((c) => c.id === 'cluster-zoo')) return Date.now() - done
          if (Date.now() - done > 5000) return Infinity
          await Bun.sleep(20)
        }
      }),
    )
    for (const ms of seen) expect(ms).toBeLessThanOrEqual(1000)
  })
})
