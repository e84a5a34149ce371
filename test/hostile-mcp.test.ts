// POST /api/mcp against what a hostile or careless client sends (contract section 12, and section 2:
// never a 5xx, never a stack, SQL or a server path): template variables named after what every
// JavaScript object inherits, JSON-RPC ids and progress tokens of every kind, method and tool names
// that are Object.prototype members, and resource URIs outside skill://{id}/SKILL.md. Raw HTTP,
// as in mcp-http.test.ts: a real client never sends most of this. Runs on either engine.
import { describe, expect, test } from 'bun:test'
import { json, makeTestApp, register, setTier } from './support/app'
import { importRecords, loadTestCatalogue } from './support/catalogue'
import { rawMcp, rpc, toolProblem } from './support/mcp'

const t = await makeTestApp()
await loadTestCatalogue(t)

// Prompts whose variables are named like members of Object.prototype.
const INHERITED = '44444444-4444-4444-8444-444444444441'
const PROTO = '44444444-4444-4444-8444-444444444442'
await importRecords(t, {
  prompts: [
    {
      id: INHERITED,
      title: 'Inherited names',
      category: 'coding',
      content: 'Call {{constructor}} with {{toString}}, then {{valueOf:plain}}.',
    },
    { id: PROTO, title: 'Proto name', category: 'coding', content: 'Set {{__proto__}} here.' },
  ],
})

const pro = await register(t)
await setTier(t, pro.user.id, 'pro')
const token = pro.token

/** Every answer body of this file, checked at the end for what must never reach a client. */
const answered: string[] = []

/** A raw POST: its status and body text (JSON-parsed when it is JSON). */
async function send(body: unknown) {
  const res = await rawMcp(t, body, { token })
  const text = await res.text()
  answered.push(text)
  let parsed: unknown = null
  try {
    parsed = JSON.parse(text)
  } catch {}
  // biome-ignore lint: tests inspect arbitrary JSON
  return { status: res.status, type: res.headers.get('content-type') ?? '', text, body: parsed as any }
}

const errorPaths = (problem: { errors?: { path: string }[] }) => (problem.errors ?? []).map((e) => e.path).sort()

describe('variables named like what every object inherits (constructor, toString, __proto__)', () => {
  test('left out, they are missing: prompts/get is invalid params, get_prompt a validation_failed tool error, naming each', async () => {
    const viaPrompts = await send(rpc('prompts/get', { name: INHERITED }))
    expect(viaPrompts.status).toBe(200)
    expect(viaPrompts.body.result).toBeUndefined()
    expect(viaPrompts.body.error.code).toBe(-32602)
    expect(errorPaths(viaPrompts.body.error.data)).toEqual(['/arguments/constructor', '/arguments/toString'])

    const viaTool = await send(rpc('tools/call', { name: 'get_prompt', arguments: { id: INHERITED } }))
    expect(errorPaths(toolProblem(viaTool.body.result))).toEqual(['/arguments/constructor', '/arguments/toString'])

    const proto = await send(rpc('prompts/get', { name: PROTO }))
    expect(proto.body.error?.code).toBe(-32602)
    expect(errorPaths(proto.body.error.data)).toEqual(['/arguments/__proto__'])
    const protoTool = await send(rpc('tools/call', { name: 'get_prompt', arguments: { id: PROTO } }))
    expect(errorPaths(toolProblem(protoTool.body.result))).toEqual(['/arguments/__proto__'])

    // Nothing of the engine's own text made it into any answer.
    for (const text of answered) expect(text).not.toMatch(/native code|\[object Object\]/)
  })

  test('given, they are filled with exactly what was sent (a JSON member "__proto__" included)', async () => {
    const filled = await send(rpc('prompts/get', { name: INHERITED, arguments: { constructor: 'new Thing()', toString: 'a string' } }))
    expect(filled.body.result.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Call new Thing() with a string, then plain.' } }])

    // JSON.parse makes "__proto__" an own member, as any client's JSON does.
    const raw = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_prompt","arguments":{"id":"${PROTO}","arguments":{"__proto__":"the value"}}}}`
    const tool = await send(raw)
    expect(tool.body.result.isError).toBeUndefined()
    expect(tool.body.result.structuredContent.text).toBe('Set the value here.')
  })
})

describe('JSON-RPC ids', () => {
  test('every id JSON-RPC allows is echoed exactly: negative, zero, empty, a lone surrogate, 10,000 characters, the largest exact integer', async () => {
    for (const id of [-1, 0, '', '\ud800', 'x'.repeat(10_000), Number.MAX_SAFE_INTEGER, 'ünïcødé 🙂']) {
      const answer = await send(rpc('ping', {}, id))
      expect({ id: String(id).slice(0, 20), status: answer.status }).toEqual({ id: String(id).slice(0, 20), status: 200 })
      expect(answer.body).toEqual({ jsonrpc: '2.0', id, result: {} })
    }
  })

  test('ids no JSON number holds exactly, or of other types: 422 naming /id, nothing answered', async () => {
    for (const id of [2 ** 53, 1e300, -(2 ** 60), true, [], ['a']]) {
      const answer = await send({ jsonrpc: '2.0', id, method: 'ping' })
      expect({ id, status: answer.status, code: answer.body?.code }).toEqual({ id, status: 422, code: 'validation_failed' })
      expect(errorPaths(answer.body)).toContain('/id')
    }
  })

  test('a batch with ids 1 and "1": two requests, each answered under its own id', async () => {
    const answer = await send([rpc('ping', {}, 1), rpc('tools/call', { name: 'list_categories', arguments: {} }, '1'), rpc('no/such', {}, 0)])
    expect(answer.status).toBe(200)
    const byKey = new Map((answer.body as Record<string, unknown>[]).map((a) => [`${typeof a.id}:${a.id}`, a]))
    expect(byKey.size).toBe(3)
    expect(byKey.get('number:1')).toEqual({ jsonrpc: '2.0', id: 1, result: {} })
    expect(byKey.get('string:1')).toMatchObject({ id: '1', result: { structuredContent: { items: expect.any(Array) } } })
    expect(byKey.get('number:0')).toMatchObject({ id: 0, error: { code: -32601 } })
  })
})

describe('progress tokens', () => {
  test('a string (even 1,000 characters) or an integer: the call is answered as an event stream carrying its result', async () => {
    for (const progressToken of ['p'.repeat(1000), 0, -7]) {
      const answer = await send(rpc('tools/call', { name: 'search_prompts', arguments: { query: 'email' }, _meta: { progressToken } }, 9))
      expect(answer.status).toBe(200)
      expect(answer.type).toStartWith('text/event-stream')
      const data = answer.text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)))
      expect(data.at(-1)).toMatchObject({ jsonrpc: '2.0', id: 9, result: { structuredContent: { total: expect.any(Number) } } })
    }
  })

  test('a fraction, a boolean, null, an object or an integer past 2^53: 422 naming the token, no call made', async () => {
    for (const progressToken of [1.5, true, null, {}, 2 ** 60]) {
      const answer = await send(rpc('tools/call', { name: 'search_prompts', arguments: { query: 'email' }, _meta: { progressToken } }))
      expect({ progressToken, status: answer.status }).toEqual({ progressToken, status: 422 })
      expect(errorPaths(answer.body)).toEqual(['/params/_meta/progressToken'])
    }
  })
})

describe('names that every JavaScript object has', () => {
  test('as methods: requests are method-not-found, notifications are taken (202) and ignored', async () => {
    for (const method of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      const request = await send(rpc(method, {}, 3))
      expect({ method, answer: request.body }).toEqual({
        method,
        answer: { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } },
      })
      const notification = await send({ jsonrpc: '2.0', method })
      expect({ method, status: notification.status, text: notification.text }).toEqual({ method, status: 202, text: '' })
    }
  })

  test('as tool names: an unknown tool (invalid params), no tool run', async () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const answer = await send(rpc('tools/call', { name, arguments: {} }))
      expect({ name, code: answer.body.error?.code, result: answer.body.result }).toEqual({ name, code: -32602, result: undefined })
      expect(answer.body.error.message).toContain(`Unknown tool: ${name}`)
    }
  })
})

describe('resources/read outside skill://{id}/SKILL.md', () => {
  test('files, other schemes, other files of a skill, traversal, odd spellings: resource-not-found (-32002), nothing read', async () => {
    // The one URI that is a resource, to be sure the others fail for what they are.
    const good = await send(rpc('resources/read', { uri: 'skill://release-notes/SKILL.md' }))
    expect(good.body.result.contents[0].text).toStartWith('---\nname: release-notes\n')
    for (const uri of [
      'file:///etc/passwd',
      'file:///proc/self/environ',
      'http://127.0.0.1:1/SKILL.md',
      'skill://release-notes/scripts/notes.sh',
      'skill://release-notes/references/style.md',
      'skill://release-notes/../../../../etc/passwd',
      'skill://..%2F..%2Fetc%2Fpasswd/SKILL.md',
      'skill://../SKILL.md',
      'skill://./SKILL.md',
      'skill://%00/SKILL.md',
      'SKILL://release-notes/SKILL.md',
      'skill://release-notes/skill.md',
      'skill://release-notes/SKILL.md?raw=1',
      'skill://release-notes/SKILL.md#top',
      'skill://release-notes/SKILL.md/',
      ' skill://release-notes/SKILL.md',
      'skill://release-notes/SKILL.md\n',
      'skill:///SKILL.md',
      '',
    ]) {
      const answer = await send(rpc('resources/read', { uri }))
      expect({ uri, status: answer.status, code: answer.body?.error?.code, result: answer.body?.result }).toEqual({
        uri,
        status: 200,
        code: -32002,
        result: undefined,
      })
      expect(answer.text).not.toMatch(/root:|PATH=|HOME=/)
    }
  })
})

describe('prompt arguments are values, never templates or replacement patterns', () => {
  test('a value holding {{another}} or $& $1 $` is put in as written', async () => {
    const welcome = '11111111-1111-4111-8111-111111111111'
    const args = { product: "$& $1 $` $' $$", tone: '{{product}}', format: 'list' }
    const viaPrompts = await send(rpc('prompts/get', { name: welcome, arguments: args }))
    const viaTool = await send(rpc('tools/call', { name: 'get_prompt', arguments: { id: welcome, arguments: args } }))
    const expected = "Write a welcome email for $& $1 $` $' $$ in a {{product}} tone, formatted as list. Mention $& $1 $` $' $$ twice."
    expect(viaPrompts.body.result.messages[0].content.text).toBe(expected)
    expect(viaTool.body.result.structuredContent.text).toBe(expected)
  })
})

test('no answer of this file carried a stack, SQL or a server path, and nothing was logged as an error', async () => {
  // Declared last, so it runs after every test above.
  expect(answered.length).toBeGreaterThan(50)
  const leaks = answered.filter((text) => /\bat [\w.<>]+ \(|\/work\/|node_modules|\.ts:\d+|\bSELECT\b|SQLITE_|\bdrizzle\b/i.test(text))
  expect(leaks.map((l) => l.slice(0, 300))).toEqual([])
  expect(t.log.lines().filter((l) => l.level === 'error')).toEqual([])
  expect((await json(await t.request('/api/health'))).status).toBe('ok')
})
