// The nesting limit that keeps a deep body from reaching validation.
import { describe, expect, test } from 'bun:test'
import { MAX_JSON_DEPTH, nestsDeeperThan, parseJsonText } from '../src/http/body'
import { ProblemError } from '../src/http/problem'
import { makeTestApp, problem, register } from './support/app'
import { setTier } from './support/catalogue'

const t = makeTestApp()
const JSON_TYPE = { 'content-type': 'application/json' }
const nested = (depth: number, inner = '') => '['.repeat(depth) + inner + ']'.repeat(depth)

const bodyRoutes = () => t.app.routes.filter((r) => !['GET', 'HEAD', 'DELETE'].includes(r.method)).map((r) => `${r.method} ${r.path}`)

const send = (route: string, body: RequestInit['body'], headers: Record<string, string> = JSON_TYPE) => {
  const [method, path] = route.split(' ') as [string, string]
  return t.request(path, { method, body, headers })
}

describe('nesting limit', () => {
  test('flat scan: brackets inside strings and escaped quotes do not count', () => {
    expect(nestsDeeperThan(nested(64), 64)).toBe(false)
    expect(nestsDeeperThan(nested(65), 64)).toBe(true)
    expect(nestsDeeperThan(`{"a":${nested(63)}}`, 64)).toBe(false)
    expect(nestsDeeperThan(`{"a":${nested(64)}}`, 64)).toBe(true)
    expect(nestsDeeperThan(JSON.stringify({ text: '['.repeat(1000) }), 64)).toBe(false)
    expect(nestsDeeperThan(JSON.stringify({ text: 'say \\"[[[[\\" and \\\\', more: '{{{{' }), 2)).toBe(false)
    // siblings do not add up: depth, not count
    expect(nestsDeeperThan(`[${Array.from({ length: 1000 }, () => '[1]').join(',')}]`, 2)).toBe(false)
    // an escaped quote does not end the string; an escaped backslash before the quote does
    expect(nestsDeeperThan('["\\"", [[', 2)).toBe(true)
    expect(nestsDeeperThan('["\\\\", [[', 2)).toBe(true)
    expect(nestsDeeperThan('["\\\\\\" [[[', 2)).toBe(false)
  })

  test('parseJsonText: 64 deep parses, 65 is 400 malformed_json', () => {
    expect(MAX_JSON_DEPTH).toBe(64)
    expect(parseJsonText(nested(64))).toBeArray()
    const refused = (() => {
      try {
        parseJsonText(nested(65))
      } catch (error) {
        return error
      }
    })() as ProblemError
    expect(refused).toBeInstanceOf(ProblemError)
    expect([refused.status, refused.code]).toEqual([400, 'malformed_json'])
  })

  test('a body nested 20,000 deep → 400 malformed_json on every body route, never a 5xx', async () => {
    const { token, email, password, user } = await register(t)
    await setTier(t, user.id, 'starter') // POST /api/user/tokens would refuse a free user first
    const bodies = [nested(20_000), `{"email":${nested(20_000)},"password":"x"}`, `{"prompt_id":${nested(65)}}`]
    for (const route of bodyRoutes()) {
      for (const body of bodies) {
        const res = await send(route, body, { ...JSON_TYPE, authorization: `Bearer ${token}` })
        const detail = await problem(res, 400, 'malformed_json')
        expect({ route, detail: detail.detail }).toEqual({ route, detail: expect.stringContaining('64 deep') })
      }
    }
    // the refusals changed nothing: the password still works
    expect((await t.request('/api/auth/login', { method: 'POST', json: { email, password } })).status).toBe(200)
  })

  test('the routes the issue names are among them', () => {
    for (const route of ['/api/auth/register', '/api/auth/login', '/api/user/favorites', '/api/user/password', '/api/optimizer/optimize']) {
      expect(bodyRoutes()).toContain(`POST ${route}`)
    }
  })

  test('as deep as the limit is still a body: validated as usual (422)', async () => {
    await problem(await send('POST /api/auth/register', `{"email":${nested(63)},"password":"x","name":"n"}`), 422, 'validation_failed')
  })
})
