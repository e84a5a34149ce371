// POST /api/mcp over raw HTTP: what a real MCP client never sends (contract sections 2, 3, 12).
// Authentication before the body, the Origin check, the headers, the body and its JSON-RPC
// shape, each refused as problem+json; never a 5xx for anything a client can send.
import { describe, expect, test } from 'bun:test'
import { json, makeTestApp, problem, register, setTier } from './support/app'
import { loadTestCatalogue } from './support/catalogue'
import { MCP_ACCEPT, rawMcp, rpc, toolProblem } from './support/mcp'

const t = await makeTestApp()
await loadTestCatalogue(t)

async function userOf(tier: 'free' | 'starter' | 'pro') {
  const registered = await register(t)
  await setTier(t, registered.user.id, tier)
  return registered
}

const starter = await userOf('starter')
const token = starter.token
const PING = rpc('ping')

describe('authentication comes first, exactly as on the REST API', () => {
  test('no token: 401 missing_token with WWW-Authenticate: Bearer', async () => {
    const res = await rawMcp(t, PING)
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="promptlib"')
    await problem(res, 401, 'missing_token')
  })

  test('a bad token: 401 invalid_token; another scheme counts as none', async () => {
    const bad = await rawMcp(t, PING, { token: 'plib_pat_000000000000000000000000000000AAAAAA' })
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"')
    await problem(bad, 401, 'invalid_token')
    await problem(await rawMcp(t, PING, { token: 'not.a.jwt' }), 401, 'invalid_token')
    await problem(await rawMcp(t, PING, { headers: { authorization: `Basic ${btoa('a:b')}` } }), 401, 'missing_token')
  })

  test('a free user: 403 api_access_required, with a JWT and with a PAT kept from a paid tier', async () => {
    const free = await userOf('free')
    expect(await problem(await rawMcp(t, PING, { token: free.token }), 403, 'api_access_required')).toMatchObject({ required_tier: 'starter' })

    const downgraded = await userOf('starter')
    const pat = (await json(await t.request('/api/user/tokens', { method: 'POST', token: downgraded.token, json: { name: 'mcp' } }))).token
    expect((await rawMcp(t, PING, { token: pat })).status).toBe(200)
    await setTier(t, downgraded.user.id, 'free')
    await problem(await rawMcp(t, PING, { token: pat }), 403, 'api_access_required')
  })

  test('before the body is read: without a token a malformed, oversized or foreign body is still a 401; a free user’s a 403', async () => {
    const free = await userOf('free')
    for (const body of ['{not json', 'x'.repeat(1024 * 1024 + 10), '[]']) {
      await problem(await rawMcp(t, body), 401, 'missing_token')
      await problem(await rawMcp(t, body, { token: free.token }), 403, 'api_access_required')
    }
    await problem(await rawMcp(t, PING, { headers: { accept: 'text/html', 'content-type': 'text/plain' } }), 401, 'missing_token')
  })
})

describe('Origin (DNS-rebinding protection)', async () => {
  const cors = await makeTestApp({ CORS_ORIGINS: 'https://app.example.com' })
  const user = await register(cors)
  await setTier(cors, user.user.id, 'starter')

  test('an Origin not in CORS_ORIGINS is refused with 403 origin_not_allowed; a listed one, or none, passes', async () => {
    await problem(await rawMcp(cors, PING, { token: user.token, headers: { origin: 'https://evil.example.com' } }), 403, 'origin_not_allowed')
    await problem(await rawMcp(cors, PING, { token: user.token, headers: { origin: 'null' } }), 403, 'origin_not_allowed')
    const listed = await rawMcp(cors, PING, { token: user.token, headers: { origin: 'https://app.example.com' } })
    expect(listed.status).toBe(200)
    expect(listed.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect((await rawMcp(cors, PING, { token: user.token })).status).toBe(200)
  })

  test('without CORS_ORIGINS every request that carries an Origin is refused (browsers included); * allows any', async () => {
    await problem(await rawMcp(t, PING, { token, headers: { origin: 'http://localhost:8000' } }), 403, 'origin_not_allowed')
    const any = await makeTestApp({ CORS_ORIGINS: '*' })
    const anyUser = await register(any)
    await setTier(any, anyUser.user.id, 'pro')
    expect((await rawMcp(any, PING, { token: anyUser.token, headers: { origin: 'https://elsewhere.example.org' } })).status).toBe(200)
  })

  test('a browser client’s preflight may send MCP-Protocol-Version', async () => {
    const res = await cors.request('/api/mcp', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
      },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version')
  })
})

describe('headers', () => {
  test('Accept must name application/json and text/event-stream: 406 not_acceptable', async () => {
    for (const accept of ['application/json', 'text/event-stream', '*/*', '']) {
      await problem(await rawMcp(t, PING, { token, headers: { accept } }), 406, 'not_acceptable')
    }
  })

  test('a body that is not application/json: 415', async () => {
    await problem(await rawMcp(t, PING, { token, headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type')
  })

  test('an MCP-Protocol-Version the server does not speak: 400 unsupported_protocol_version', async () => {
    await problem(await rawMcp(t, PING, { token, headers: { 'mcp-protocol-version': '1999-01-01' } }), 400, 'unsupported_protocol_version')
    expect((await rawMcp(t, PING, { token, headers: { 'mcp-protocol-version': '2025-06-18' } })).status).toBe(200)
  })

  test('GET and DELETE: 405 with Allow (no server-initiated stream, no session to end)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await t.request('/api/mcp', { method, token, headers: { accept: MCP_ACCEPT } })
      expect(res.headers.get('allow')).toBe('POST, OPTIONS')
      await problem(res, 405, 'method_not_allowed')
    }
  })
})

describe('the body', () => {
  test('over 1 MiB: 413, announced or streamed', async () => {
    const big = JSON.stringify({ ...PING, params: { pad: 'x'.repeat(1024 * 1024) } })
    await problem(await rawMcp(t, big, { token }), 413, 'payload_too_large')
    const chunks = [new TextEncoder().encode(big.slice(0, 600_000)), new TextEncoder().encode(big.slice(600_000))]
    const streamed = new ReadableStream({
      pull(controller) {
        const next = chunks.shift()
        if (next) controller.enqueue(next)
        else controller.close()
      },
    })
    await problem(await rawMcp(t, streamed as never, { token }), 413, 'payload_too_large')
  })

  test('not JSON, empty, not UTF-8, or nested deeper than 64: 400 malformed_json', async () => {
    for (const body of ['{"jsonrpc": "2.0",', '', '   ', `${'['.repeat(65)}${']'.repeat(65)}`, new Uint8Array([0x7b, 0xff, 0x7d])]) {
      await problem(await rawMcp(t, body as never, { token }), 400, 'malformed_json')
    }
  })

  test('JSON that is not a JSON-RPC request or notification: 422 validation_failed naming where', async () => {
    const cases: [unknown, string][] = [
      [null, '/'],
      [[], '/'],
      [42, '/'],
      [JSON.stringify('ping'), '/'],
      [{}, '/method'],
      [{ jsonrpc: '2.0', id: 1 }, '/method'],
      [{ jsonrpc: '2.0', id: 1, method: 5 }, '/method'],
      [{ jsonrpc: '2.0', id: 1, method: null }, '/method'],
      [{ jsonrpc: '2.0', id: 1, result: {} }, '/method'],
      [{ jsonrpc: '1.0', id: 1, method: 'ping' }, '/jsonrpc'],
      [{ id: 1, method: 'ping' }, '/jsonrpc'],
      [{ jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }, '/id'],
      [{ jsonrpc: '2.0', id: 1.5, method: 'ping' }, '/id'],
      [{ jsonrpc: '2.0', id: null, method: 'ping' }, '/id'],
      [{ jsonrpc: '2.0', id: 1, method: 'ping', params: [1, 2] }, '/params'],
      [{ jsonrpc: '2.0', id: 1, method: 'ping', extra: true }, '/'],
      [[PING, 7], '/1'],
      [
        [
          { ...PING, id: 1 },
          { ...PING, id: 1 },
        ],
        '/',
      ],
      [[rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } }), rpc('ping', {}, 2)], '/'],
      [Array.from({ length: 101 }, (_, i) => rpc('ping', {}, i)), '/'],
      [rpc('initialize', { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'x', version: '1' } }), '/params/protocolVersion'],
      [rpc('initialize', {}), '/params/clientInfo'],
    ]
    for (const [body, path] of cases) {
      const res = await rawMcp(t, body, { token })
      const found = await problem(res, 422, 'validation_failed')
      expect({ body, paths: (found.errors as { path: string }[]).map((e) => e.path) }).toEqual({ body, paths: expect.arrayContaining([path]) })
    }
  })
})

describe('answers', () => {
  test('a batch: one JSON-RPC answer per request, by id', async () => {
    const res = await rawMcp(t, [rpc('ping', {}, 'a'), rpc('tools/list', {}, 'b'), { jsonrpc: '2.0', method: 'notifications/initialized' }], {
      token,
    })
    expect(res.status).toBe(200)
    const answers = await json(res)
    expect(answers).toHaveLength(2)
    const byId = Object.fromEntries(answers.map((a: { id: string }) => [a.id, a]))
    expect(byId.a.result).toEqual({})
    expect(byId.b.result.tools).toHaveLength(9)
  })

  test('notifications only: 202 and no body', async () => {
    for (const body of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 12345 } },
      [{ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }],
    ]) {
      const res = await rawMcp(t, body, { token })
      expect(res.status).toBe(202)
      expect(await res.text()).toBe('')
    }
  })

  test('an unknown method, or params of the wrong shape: a JSON-RPC error, HTTP 200', async () => {
    const unknown = await json(await rawMcp(t, rpc('sampling/createMessage', {}), { token }))
    expect(unknown.error.code).toBe(-32601)
    for (const [method, params] of [
      ['tools/call', { name: 'search_prompts', arguments: [1, 2] }],
      ['tools/call', {}],
      ['prompts/get', {}],
      ['prompts/get', { name: 7 }],
      ['prompts/list', { cursor: 7 }],
      ['resources/read', { uri: null }],
    ] as const) {
      const res = await rawMcp(t, rpc(method, params), { token })
      expect(res.status).toBe(200)
      expect({ method, params, code: (await json(res)).error?.code }).toEqual({ method, params, code: -32602 })
    }
  })

  test('X-Request-Id is echoed and the access log names the route, on answers and refusals', async () => {
    const ok = await rawMcp(t, PING, { token, headers: { 'x-request-id': 'mcp-ok-1' } })
    expect(ok.headers.get('x-request-id')).toBe('mcp-ok-1')
    const refused = await rawMcp(t, PING, { headers: { 'x-request-id': 'mcp-refused-1' } })
    expect(refused.headers.get('x-request-id')).toBe('mcp-refused-1')
    const lines = t.log.lines()
    expect(lines.find((l) => l.request_id === 'mcp-ok-1')).toMatchObject({ method: 'POST', route: '/api/mcp', status: 200 })
    expect(lines.find((l) => l.request_id === 'mcp-refused-1')).toMatchObject({ route: '/api/mcp', status: 401 })
  })
})

describe('tool failures on the wire', () => {
  test('an unknown tool: HTTP 200 with a JSON-RPC error -32602 naming it, no tool result', async () => {
    const res = await rawMcp(t, rpc('tools/call', { name: 'delete_everything', arguments: {} }, 7), { token })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('application/json')
    const answer = await json(res)
    expect(answer).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: expect.stringContaining('Unknown tool: delete_everything') },
    })
    expect(answer.result).toBeUndefined()
  })

  test('arguments of the wrong type: HTTP 200, a tool result with isError naming validation_failed and the path', async () => {
    const res = await rawMcp(t, rpc('tools/call', { name: 'search_prompts', arguments: { query: 5, limit: 'ten' } }, 8), { token })
    expect(res.status).toBe(200)
    const answer = await json(res)
    expect(answer.id).toBe(8)
    expect(answer.error).toBeUndefined()
    expect(answer.result.isError).toBe(true)
    const problem = toolProblem(answer.result)
    expect(problem).toMatchObject({ code: 'validation_failed', status: 422 })
    expect(problem.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['/query', '/limit']))
  })

  test('a tool refused below the tier it needs (skills below pro): a tool error naming upgrade_required', async () => {
    const res = await rawMcp(t, rpc('tools/call', { name: 'search_skills', arguments: { query: 'release' } }), { token })
    expect(res.status).toBe(200)
    expect(toolProblem((await json(res)).result)).toMatchObject({ code: 'upgrade_required', required_tier: 'pro' })
  })
})

describe('no 5xx for anything a client can send', () => {
  test('odd but well-formed messages are answered with 2xx or 4xx, and nothing is logged as an error', async () => {
    const long = 'x'.repeat(100_000)
    const bodies: unknown[] = [
      rpc('initialize', { protocolVersion: 'nonsense', capabilities: {}, clientInfo: { name: 'x', version: '1' } }),
      rpc('tools/call', { name: long, arguments: {} }),
      rpc('tools/call', { name: 'search_prompts', arguments: { query: '"unbalanced ( NEAR * OR' } }),
      rpc('tools/call', { name: 'search_prompts', arguments: { query: long } }),
      rpc('tools/call', { name: 'search_prompts', arguments: { query: '\u0000\ud800' } }),
      rpc('tools/call', { name: 'get_prompt', arguments: { id: '11111111-1111-4111-8111-111111111111', arguments: { product: long } } }),
      rpc('tools/call', { name: 'get_prompt', arguments: { id: '11111111-1111-4111-8111-111111111111', arguments: { ['\u0000']: 'x' } } }),
      rpc('tools/call', { name: 'get_skill', arguments: { id: '../../etc/passwd' } }),
      rpc('tools/call', { name: 'optimize_prompt', arguments: { prompt: '\ud800', mode: 'enhance' } }),
      rpc('tools/call', { name: 'optimize_prompt', arguments: { prompt: 'x'.repeat(30_000), mode: 'enhance' } }),
      rpc('tools/call', { name: 'optimize_prompt', arguments: { prompt: 'x', mode: 'model-specific', target_model: '\u0007' } }),
      rpc('tools/call', { name: 'list_favorites', arguments: { limit: 1e300 } }),
      rpc('tools/call', { name: 'list_categories', arguments: { __proto__: { polluted: true } } }),
      rpc('tools/call', { name: 'list_categories', _meta: { progressToken: {} } }),
      rpc('prompts/get', { name: '11111111-1111-4111-8111-111111111111', arguments: { product: long } }),
      rpc('prompts/list', { cursor: long }),
      rpc('prompts/list', { cursor: '' }),
      rpc('resources/list', { cursor: 'Zm9v' }),
      rpc('resources/read', { uri: `skill://${long}/SKILL.md` }),
      rpc('resources/read', { uri: 'skill://release-notes/../SKILL.md' }),
      rpc('resources/subscribe', { uri: 'skill://release-notes/SKILL.md' }),
      rpc('logging/setLevel', { level: 'debug' }),
      rpc('completion/complete', { ref: { type: 'ref/prompt', name: 'x' }, argument: { name: 'a', value: 'b' } }),
      rpc('tasks/list', {}),
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: { evil: true } } },
      rpc('ping', { _meta: { progressToken: 'p' } }),
      rpc('x'.repeat(10_000), {}),
    ]
    for (const body of bodies) {
      const res = await rawMcp(t, body, { token })
      const text = await res.text()
      expect({ body: JSON.stringify(body).slice(0, 120), status: res.status < 500 }).toEqual({
        body: JSON.stringify(body).slice(0, 120),
        status: true,
      })
      if (res.status === 200) expect(JSON.parse(text).jsonrpc).toBe('2.0')
    }
    expect(t.log.lines().filter((l) => l.level === 'error')).toEqual([])
  })

  test('a NUL (U+0000) in an id, a uri, a cursor or a filter, as a pro user: answers, never an error (PostgreSQL cannot hold NUL)', async () => {
    const pro = await userOf('pro')
    const NUL = 'a\u0000b'
    const bodies: unknown[] = [
      rpc('tools/call', { name: 'get_skill', arguments: { id: NUL } }),
      rpc('tools/call', { name: 'search_skills', arguments: { query: NUL } }),
      rpc('tools/call', { name: 'search_prompts', arguments: { query: 'review', tag: NUL } }),
      rpc('tools/call', { name: 'add_favorite', arguments: { prompt_id: NUL } }),
      rpc('prompts/get', { name: NUL }),
      rpc('prompts/list', { cursor: NUL }),
      rpc('resources/list', { cursor: NUL }),
      rpc('resources/read', { uri: `skill://${NUL}/SKILL.md` }),
    ]
    const before = t.log.lines().length
    for (const body of bodies) {
      const res = await rawMcp(t, body, { token: pro.token })
      expect({ body: JSON.stringify(body).slice(0, 120), status: res.status }).toEqual({ body: JSON.stringify(body).slice(0, 120), status: 200 })
      expect((await json(res)).jsonrpc).toBe('2.0')
    }
    const skill = await json(await rawMcp(t, bodies[0], { token: pro.token }))
    expect(toolProblem(skill.result)).toMatchObject({ code: 'not_found', status: 404 })
    expect(
      t.log
        .lines()
        .slice(before)
        .filter((l) => l.level !== 'info' && l.level !== 'debug'),
    ).toEqual([])
  })
})
