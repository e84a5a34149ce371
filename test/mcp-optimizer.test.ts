// optimize_prompt over MCP, on the optimizer of the REST stream (one quota, one history): progress
// notifications while the engine streams, the engine's failures as tool errors, a quota used up,
// and a call stopped by the client (notifications/cancelled, or its HTTP request going away).
// Against a fake OpenAI-compatible upstream that records when its client went away.
import { afterAll, describe, expect, test } from 'bun:test'
import type { Progress } from '@modelcontextprotocol/sdk/types.js'
import { userSubject } from '../src/features/usage'
import { json, register, setTier } from './support/app'
import { FakeLlm } from './support/fake-llm'
import { listen, MCP_ACCEPT, mcpClient, rpc, toolProblem } from './support/mcp'
import { eventually, makeOptimizerApp } from './support/optimizer'

const fake = new FakeLlm()
const t = await makeOptimizerApp({ upstreamUrl: fake.url })
const server = listen(t)
afterAll(() => {
  server.stop()
  fake.stop()
})

const GOOD = { prompt: 'write a blog post about rust', mode: 'enhance' }
const callOptimize = (args: Record<string, unknown> = GOOD) => ({ name: 'optimize_prompt', arguments: args })

async function starterUser() {
  const registered = await register(t)
  await setTier(t, registered.user.id, 'starter')
  const client = await mcpClient(server.url, registered.token)
  return { ...registered, client }
}

const history = async (token: string) => (await json(await t.request('/api/optimizer/history', { token }))).items
const usedToday = async (token: string) => (await json(await t.request('/api/user/me', { token }))).usage.optimizations_today

async function historyStatus(token: string, status: string) {
  await eventually(async () => (await history(token))[0]?.status === status, 3000)
  return (await history(token))[0]
}

/** A raw tools/call on the listening server, so the test can drop the connection. */
function postCall(token: string, id: number, args: Record<string, unknown>, signal: AbortSignal, progressToken?: string) {
  const params = { name: 'optimize_prompt', arguments: args, ...(progressToken ? { _meta: { progressToken } } : {}) }
  return fetch(`${server.url}/api/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, accept: MCP_ACCEPT, 'content-type': 'application/json' },
    body: JSON.stringify(rpc('tools/call', params, id)),
    signal,
  })
}

/** A client's notifications/cancelled for `requestId`, sent with `token` in a POST of its own. */
const sendCancel = (token: string, requestId: number) =>
  fetch(`${server.url}/api/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, accept: MCP_ACCEPT, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } }),
  })

describe('optimize_prompt', () => {
  test('the rewritten prompt, saved in the optimizer history and counted against the same daily quota as the REST stream', async () => {
    fake.script = {}
    const user = await starterUser()
    const first = await user.client.callTool(callOptimize())
    expect(first.structuredContent).toEqual({ id: expect.any(String), optimized_prompt: 'Rewritten prompt: be specific.', remaining_today: 9 })
    const [entry] = await history(user.token)
    expect(entry).toMatchObject({
      id: (first.structuredContent as { id: string }).id,
      status: 'completed',
      optimized_prompt: 'Rewritten prompt: be specific.',
    })

    const rest = await t.request('/api/optimizer/optimize', { method: 'POST', token: user.token, json: GOOD })
    await rest.text()
    const second = await user.client.callTool(callOptimize())
    expect((second.structuredContent as { remaining_today: number }).remaining_today).toBe(7)
    expect(await history(user.token)).toHaveLength(3)
    expect(await usedToday(user.token)).toBe(3)
  })

  test('the quota used up: a tool error naming daily_limit_reached (with limit, used, resets_at), as the REST route’s 429; nothing recorded', async () => {
    const user = await starterUser()
    for (let i = 0; i < 10; i++) {
      await t.services.usage.consume({ subject: userSubject(user.user.id), metric: 'optimizations', limit: 10 })
    }
    const result = await user.client.callTool(callOptimize())
    expect(toolProblem(result)).toMatchObject({ code: 'daily_limit_reached', status: 429, limit: 10, used: 10, resets_at: expect.any(String) })
    const rest = await t.request('/api/optimizer/optimize', { method: 'POST', token: user.token, json: GOOD })
    expect(rest.status).toBe(429)
    expect(await history(user.token)).toEqual([])
  })

  test('with a progress token the text streams as progress notifications, in order, before the result', async () => {
    fake.script = { tokens: ['Rewrite ', 'this ', 'prompt ', 'step by step.'], tokenDelayMs: 5 }
    const user = await starterUser()
    const seen: Progress[] = []
    const result = await user.client.callTool(callOptimize(), undefined, { onprogress: (p) => seen.push(p) })
    const optimized = (result.structuredContent as { optimized_prompt: string }).optimized_prompt
    expect(optimized).toBe('Rewrite this prompt step by step.')
    expect(seen.map((p) => p.message).join('')).toBe(optimized)
    expect(seen.map((p) => p.progress)).toEqual([8, 13, 20, 33])
  })

  test('on the wire: an event stream with a progress token, plain JSON without one', async () => {
    fake.script = { tokens: ['one ', 'two'] }
    const user = await starterUser()
    const streamed = await postCall(user.token, 1, GOOD, new AbortController().signal, 'tok-1')
    expect(streamed.headers.get('content-type')).toStartWith('text/event-stream')
    const events = (await streamed.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)))
    expect(events.map((e) => e.method ?? 'result')).toEqual(['notifications/progress', 'notifications/progress', 'result'])
    expect(events[0].params).toEqual({ progressToken: 'tok-1', progress: 4, message: 'one ' })
    expect(events[2].result.structuredContent.optimized_prompt).toBe('one two')

    const plain = await postCall(user.token, 2, GOOD, new AbortController().signal)
    expect(plain.headers.get('content-type')).toStartWith('application/json')
    expect((await json(plain)).result.structuredContent.optimized_prompt).toBe('one two')
  })

  test('the engine fails before any text: a tool error naming upstream_error; the history says failed; not counted', async () => {
    fake.script = { status: 500 }
    const user = await starterUser()
    const result = await user.client.callTool(callOptimize())
    expect(toolProblem(result)).toMatchObject({ code: 'upstream_error' })
    expect(JSON.stringify(result)).not.toContain('upstream-internal-detail')
    expect((await history(user.token))[0]).toMatchObject({ status: 'failed', optimized_prompt: null })
    expect(await usedToday(user.token)).toBe(0)
    expect(t.log.lines().filter((l) => l.level === 'error')).toEqual([])
  })

  test('the engine fails mid-stream: upstream_error too, and the call counts (text went out)', async () => {
    fake.script = { tokens: ['one ', 'two ', 'three'], failAfter: 2, failHow: 'drop', tokenDelayMs: 5 }
    const user = await starterUser()
    const seen: Progress[] = []
    const result = await user.client.callTool(callOptimize(), undefined, { onprogress: (p) => seen.push(p) })
    expect(toolProblem(result)).toMatchObject({ code: 'upstream_error', detail: expect.stringContaining('incomplete') })
    expect(seen.map((p) => p.message)).toEqual(['one ', 'two '])
    expect((await history(user.token))[0].status).toBe('failed')
    expect(await usedToday(user.token)).toBe(1)
  })
})

describe('optimize_prompt failures over raw HTTP', () => {
  const wireResult = async (res: Response) => {
    expect(res.status).toBe(200)
    const answer = await json(res)
    expect(answer.error).toBeUndefined()
    return answer.result
  }

  test('the engine fails: HTTP 200, a tool result with isError naming upstream_error, no upstream detail', async () => {
    fake.script = { status: 500 }
    const user = await starterUser()
    const result = await wireResult(await postCall(user.token, 1, GOOD, new AbortController().signal))
    expect(toolProblem(result)).toMatchObject({ code: 'upstream_error' })
    expect(result.structuredContent).toBeUndefined()
    expect(JSON.stringify(result)).not.toContain('upstream-internal-detail')
  })

  test('the engine fails with a progress token: the event stream ends with the same tool error', async () => {
    fake.script = { status: 500 }
    const user = await starterUser()
    const res = await postCall(user.token, 2, GOOD, new AbortController().signal, 'tok-fail')
    expect(res.status).toBe(200)
    const events = (await res.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)))
    expect(events.at(-1)).toMatchObject({ id: 2, result: { isError: true } })
    expect(toolProblem(events.at(-1).result)).toMatchObject({ code: 'upstream_error' })
  })

  test('the quota used up: HTTP 200, a tool result with isError naming daily_limit_reached, the engine never asked', async () => {
    fake.script = {}
    const user = await starterUser()
    for (let i = 0; i < 10; i++) {
      await t.services.usage.consume({ subject: userSubject(user.user.id), metric: 'optimizations', limit: 10 })
    }
    const before = fake.requests.length
    const result = await wireResult(await postCall(user.token, 3, GOOD, new AbortController().signal))
    expect(toolProblem(result)).toMatchObject({ code: 'daily_limit_reached', status: 429, limit: 10, used: 10 })
    expect(fake.requests.length).toBe(before)
  })
})

describe('stopping a call', () => {
  const slow = () => ({ tokens: Array.from({ length: 100 }, (_, i) => `token${i} `), tokenDelayMs: 30 })

  for (const withProgress of [false, true]) {
    test(`the client cancels (notifications/cancelled${withProgress ? ', streaming progress' : ''}): the engine stops at once, the history entry is aborted`, async () => {
      fake.script = slow()
      const user = await starterUser()
      const before = fake.requests.length
      const controller = new AbortController()
      const call = user.client.callTool(callOptimize(), undefined, {
        signal: controller.signal,
        ...(withProgress ? { onprogress: () => {} } : {}),
      })
      await fake.waitForRequests(before + 1)
      const upstream = fake.requests.at(-1)!
      await Bun.sleep(60)
      const cancelledAt = performance.now()
      controller.abort('the user pressed stop')
      expect(
        await call.then(
          () => 'answered',
          () => 'cancelled',
        ),
      ).toBe('cancelled')
      const goneAt = await fake.clientGone(upstream)
      expect(goneAt).not.toBeNull()
      expect(goneAt! - cancelledAt).toBeLessThan(500)
      const entry = await historyStatus(user.token, 'aborted')
      expect(entry.optimized_prompt).toBeNull()
      await eventually(() => t.services.mcp.calls.size === 0)
    })
  }

  for (const withProgress of [false, true]) {
    test(`the HTTP request goes away (${withProgress ? 'an event stream' : 'a JSON answer'}): the engine stops at once, the history entry is aborted`, async () => {
      fake.script = slow()
      const user = await starterUser()
      const before = fake.requests.length
      const controller = new AbortController()
      const response = postCall(user.token, 7, GOOD, controller.signal, withProgress ? 'p' : undefined)
      await fake.waitForRequests(before + 1)
      const upstream = fake.requests.at(-1)!
      if (withProgress) {
        const reader = (await response).body!.getReader()
        expect(new TextDecoder().decode((await reader.read()).value)).toContain('notifications/progress')
      } else await Bun.sleep(60)
      const abortedAt = performance.now()
      controller.abort()
      await response.catch(() => {})
      const goneAt = await fake.clientGone(upstream)
      expect(goneAt).not.toBeNull()
      expect(goneAt! - abortedAt).toBeLessThan(500)
      await historyStatus(user.token, 'aborted')
    })
  }

  test('two clients on one token with the same request id: a cancellation naming that id stops neither (it cannot tell whose)', async () => {
    fake.script = { tokens: ['a ', 'b ', 'c ', 'd'], tokenDelayMs: 60 }
    const owner = await starterUser()
    const before = fake.requests.length
    const calls = [postCall(owner.token, 1, GOOD, new AbortController().signal), postCall(owner.token, 1, GOOD, new AbortController().signal)]
    await fake.waitForRequests(before + 2)
    const cancel = await sendCancel(owner.token, 1)
    expect(cancel.status).toBe(202)
    for (const call of calls) expect((await json(await call)).result.structuredContent.optimized_prompt).toBe('a b c d')
    expect((await history(owner.token)).map((h: { status: string }) => h.status)).toEqual(['completed', 'completed'])
  })

  test('a cancellation sent with another user’s token stops nothing', async () => {
    fake.script = { tokens: ['a ', 'b ', 'c ', 'd'], tokenDelayMs: 40 }
    const owner = await starterUser()
    const other = await starterUser()
    const before = fake.requests.length
    const call = postCall(owner.token, 42, GOOD, new AbortController().signal)
    await fake.waitForRequests(before + 1)
    const cancel = await sendCancel(other.token, 42)
    expect(cancel.status).toBe(202)
    expect((await json(await call)).result.structuredContent.optimized_prompt).toBe('a b c d')
    expect((await history(owner.token))[0].status).toBe('completed')
  })
})
