// MCP admission: at most MCP_CONCURRENCY requests are answered at once, the others wait their turn
// in order (a bound on the burst that held the heap, not a refusal); optimize_prompt calls, which
// wait seconds on the engine, take no turn.
import { afterAll, describe, expect, test } from 'bun:test'
import { createAdmission, MCP_CONCURRENCY } from '../src/features/mcp'
import { json, makeTestApp, register, setTier } from './support/app'
import { loadTestCatalogue } from './support/catalogue'
import { FakeLlm } from './support/fake-llm'
import { listen, MCP_ACCEPT, rawMcp, rpc } from './support/mcp'
import { eventually, makeOptimizerApp } from './support/optimizer'

const tick = () => new Promise((resolve) => setTimeout(resolve, 5))

describe('createAdmission', () => {
  test('a limit of two: the third waits until one leaves, turns pass in arrival order, leaving twice counts once', async () => {
    const admission = createAdmission(2)
    const a = await admission.enter()
    const b = await admission.enter()
    const order: string[] = []
    const c = admission.enter().then((leave) => (order.push('c'), leave))
    const d = admission.enter().then((leave) => (order.push('d'), leave))
    await tick()
    expect({ running: admission.running, waiting: admission.waiting, order }).toEqual({ running: 2, waiting: 2, order: [] })

    a()
    a()
    await tick()
    expect({ running: admission.running, waiting: admission.waiting, order }).toEqual({ running: 2, waiting: 1, order: ['c'] })
    b()
    ;(await c)()
    ;(await d)()
    expect({ running: admission.running, waiting: admission.waiting, order }).toEqual({ running: 0, waiting: 0, order: ['c', 'd'] })
  })
})

describe('POST /api/mcp under a burst', async () => {
  const t = await makeTestApp()
  await loadTestCatalogue(t)
  const user = await register(t)
  await setTier(t, user.user.id, 'starter')

  test(`${MCP_CONCURRENCY * 4} calls at once: every one answered, never more than ${MCP_CONCURRENCY} at a time, no turn left taken`, async () => {
    const { admission } = t.services.mcp
    let busiest = 0
    let longestQueue = 0
    let sampling = true
    const sample = () => {
      busiest = Math.max(busiest, admission.running)
      longestQueue = Math.max(longestQueue, admission.waiting)
      if (sampling) setImmediate(sample)
    }
    sample()
    // Also right after each arrival: a burst can pass between two turns of the loop (the
    // turn's reads answer every admitted call at once), where the sampler alone sees nothing.
    const enter = admission.enter
    admission.enter = () => {
      const entered = enter()
      busiest = Math.max(busiest, admission.running)
      longestQueue = Math.max(longestQueue, admission.waiting)
      return entered
    }
    const calls = Array.from({ length: MCP_CONCURRENCY * 4 }, (_, i) =>
      rawMcp(t, rpc('tools/call', { name: 'search_prompts', arguments: { query: i % 2 ? 'review' : 'email' } }, i), { token: user.token }),
    )
    const answers = await Promise.all(calls.map(async (res) => ({ status: (await res).status, body: await json(await res) })))
    sampling = false
    admission.enter = enter
    expect(answers.every((a) => a.status === 200 && a.body.result?.structuredContent?.items !== undefined)).toBe(true)
    expect(busiest).toBeLessThanOrEqual(MCP_CONCURRENCY)
    expect(longestQueue).toBeGreaterThan(0)
    expect({ running: admission.running, waiting: admission.waiting }).toEqual({ running: 0, waiting: 0 })
  })

  test('a batch that holds an optimize_prompt call among others takes a turn (its searches do not run unadmitted)', async () => {
    const { admission } = t.services.mcp
    let entered = 0
    const enter = admission.enter
    admission.enter = () => {
      entered++
      return enter()
    }
    try {
      const batch = [
        rpc('tools/call', { name: 'optimize_prompt', arguments: { prompt: 5 } }, 1),
        rpc('tools/call', { name: 'search_prompts', arguments: { query: 'review' } }, 2),
      ]
      const res = await rawMcp(t, batch, { token: user.token })
      expect(res.status).toBe(200)
      expect((await json(res)).map((m: { id: number }) => m.id).sort()).toEqual([1, 2])
      expect(entered).toBe(1)
    } finally {
      admission.enter = enter
    }
    expect({ running: admission.running, waiting: admission.waiting }).toEqual({ running: 0, waiting: 0 })
  })

  test('refusals and JSON-RPC errors give their turn back', async () => {
    const { admission } = t.services.mcp
    await rawMcp(t, rpc('tools/call', { name: 'no_such_tool', arguments: {} }), { token: user.token })
    await rawMcp(t, rpc('tools/call', { name: 'search_prompts', arguments: { query: 5 } }), { token: user.token })
    await rawMcp(t, rpc('prompts/get', { name: 'not-a-prompt' }), { token: user.token })
    await rawMcp(t, { jsonrpc: '2.0', method: 'notifications/initialized' }, { token: user.token })
    expect({ running: admission.running, waiting: admission.waiting }).toEqual({ running: 0, waiting: 0 })
  })
})

describe('optimize_prompt takes no turn', async () => {
  const fake = new FakeLlm()
  fake.script = { tokens: ['held '], hold: true }
  const t = await makeOptimizerApp({ upstreamUrl: fake.url })
  const server = listen(t)
  afterAll(() => {
    server.stop()
    fake.stop()
  })

  test(`with ${MCP_CONCURRENCY + 2} optimizations waiting on the engine, other calls are still answered at once`, async () => {
    const stop = new AbortController()
    const held: Promise<unknown>[] = []
    // Three open streams per user at most: enough users for more calls than there are turns.
    for (let u = 0; u < Math.ceil((MCP_CONCURRENCY + 2) / 3); u++) {
      const user = await register(t)
      await setTier(t, user.user.id, 'pro')
      for (let i = 0; i < 3; i++) {
        const body = JSON.stringify(rpc('tools/call', { name: 'optimize_prompt', arguments: { prompt: 'rewrite me', mode: 'enhance' } }, i))
        held.push(
          fetch(`${server.url}/api/mcp`, {
            method: 'POST',
            headers: { authorization: `Bearer ${user.token}`, accept: MCP_ACCEPT, 'content-type': 'application/json' },
            body,
            signal: stop.signal,
          }).catch(() => undefined),
        )
      }
    }
    await fake.waitForRequests(held.length)
    const other = await register(t)
    await setTier(t, other.user.id, 'starter')
    const started = performance.now()
    const res = await rawMcp(t, rpc('tools/call', { name: 'list_categories', arguments: {} }), { token: other.token })
    expect(res.status).toBe(200)
    expect((await json(res)).result.structuredContent.items).toBeArray()
    expect(performance.now() - started).toBeLessThan(2000)
    stop.abort()
    await Promise.all(held)
    await eventually(async () => t.services.mcp.admission.running === 0, 3000)
  })
})
