// The server edge: CORS, early 413, security headers, the route template in the access log.
import { describe, expect, test } from 'bun:test'
import { indexRoutes, pathnameOf } from '../src/http/routes-index'
import { makeTestApp, problem, register } from './support/app'

describe('CORS', () => {
  const t = makeTestApp({ CORS_ORIGINS: 'https://app.example.com' })

  test('an allowed origin gets the CORS headers, on errors too', async () => {
    for (const path of ['/api/health', '/api/user/me']) {
      const res = await t.request(path, { headers: { origin: 'https://app.example.com' } })
      expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
      expect(res.headers.get('access-control-expose-headers')).toContain('x-request-id')
      expect(res.headers.get('vary')).toContain('Origin')
    }
  })

  test('another origin gets none', async () => {
    const res = await t.request('/api/health', { headers: { origin: 'https://evil.example.com' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
  })

  test('a preflight from an allowed origin → 204 with methods and headers', async () => {
    const res = await t.request('/api/user/tokens', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect(res.headers.get('access-control-allow-methods')).toContain('POST')
    expect(res.headers.get('access-control-allow-headers')).toContain('authorization')
    expect(res.headers.get('x-request-id')).toBeTruthy()
  })

  test('without CORS_ORIGINS no CORS headers are sent at all', async () => {
    const plain = makeTestApp()
    const res = await plain.request('/api/health', { headers: { origin: 'https://app.example.com' } })
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
  })

  test('CORS_ORIGINS=* allows any origin', async () => {
    const any = makeTestApp({ CORS_ORIGINS: '*' })
    const res = await any.request('/api/health', { headers: { origin: 'https://anything.example.org' } })
    expect(res.headers.get('access-control-allow-origin')).toBe('https://anything.example.org')
  })
})

describe('edge answers', () => {
  const t = makeTestApp()

  test('an announced body over 1 MiB is refused before it is read, with the usual headers', async () => {
    const res = await t.request('/api/auth/login', { method: 'POST', body: 'x'.repeat(1024 * 1024 + 1), headers: { 'content-type': 'application/json' } })
    const id = res.headers.get('x-request-id')
    await problem(res, 413, 'payload_too_large')
    expect(id).toBeTruthy()
  })

  test('every response says nosniff', async () => {
    for (const res of [await t.request('/api/health'), await t.request('/api/nope'), await t.request('/api/user/me')]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    }
  })

  test('the access log names the route template, never the raw path or query', async () => {
    const { token } = await register(t)
    await t.request('/api/user/tokens/some-token-id?x=secret-query', { method: 'DELETE', token, headers: { 'x-request-id': 'edge-log-1' } })
    await t.request('/api/no/such/thing', { headers: { 'x-request-id': 'edge-log-2' } })
    const lines = t.log.lines()
    expect(lines.find((l) => l.request_id === 'edge-log-1')).toMatchObject({ route: '/api/user/tokens/:token_id', method: 'DELETE', status: 404 })
    expect(lines.find((l) => l.request_id === 'edge-log-2')).toMatchObject({ route: null, status: 404 })
    expect(t.log.text()).not.toContain('secret-query')
    expect(t.log.text()).not.toContain('some-token-id')
  })
})

describe('route index', () => {
  const index = indexRoutes([
    { method: 'GET', path: '/api/skills/search' },
    { method: 'GET', path: '/api/skills/:skill_id' },
    { method: 'GET', path: '/api/categories/:category_id/prompts' },
    { method: 'DELETE', path: '/api/user/me' },
  ])

  test('static paths win over parameters; methods are distinct', () => {
    expect(index.find('GET', '/api/skills/search')).toBe('/api/skills/search')
    expect(index.find('GET', '/api/skills/code-review')).toBe('/api/skills/:skill_id')
    expect(index.find('GET', '/api/categories/writing/prompts')).toBe('/api/categories/:category_id/prompts')
    expect(index.find('GET', '/api/categories/writing/prompts/x')).toBeNull()
    expect(index.find('GET', '/api/user/me')).toBeNull()
    expect(index.find('DELETE', '/api/user/me')).toBe('/api/user/me')
  })

  test('pathnameOf drops the query string', () => {
    expect(pathnameOf('http://localhost/api/search?q=a/b')).toBe('/api/search')
    expect(pathnameOf('http://127.0.0.1:8000/')).toBe('/')
    expect(pathnameOf('http://h')).toBe('/')
  })
})
