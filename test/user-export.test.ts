// GET /api/user/export (docs/api.md): the user's own data as one JSON attachment: account,
// subscription, favorites, token metadata (never a secret or hash), optimizer history, payments.
// JWT only: a personal access token gets 403 jwt_required; no token 401.
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { json, makeTestApp, problem, register, setTier } from './support/app'
import { sqlRun } from './support/sql'

const t = await makeTestApp()
await t.services.catalogue.importPaths([join(import.meta.dir, 'fixtures', 'catalogue-good.json')])
const PROMPT = '11111111-1111-4111-8111-111111111111'

async function optimize(token: string, prompt: string) {
  const res = await t.request('/api/optimizer/optimize', { method: 'POST', token, json: { prompt, mode: 'enhance' } })
  expect(res.status).toBe(200)
  await res.text() // to the end of the stream
}

describe('GET /api/user/export', () => {
  test('one JSON attachment with the account, favorites, token metadata, history and payments; nothing of another user', async () => {
    const me = await register(t, { name: 'Exporter' })
    const other = await register(t)
    await setTier(t, me.user.id, 'pro')
    expect((await t.request('/api/user/favorites', { method: 'POST', token: me.token, json: { prompt_id: PROMPT } })).status).toBe(201)
    expect((await t.request('/api/user/favorites', { method: 'POST', token: other.token, json: { prompt_id: PROMPT } })).status).toBe(201)
    const pat = await json(await t.request('/api/user/tokens', { method: 'POST', token: me.token, json: { name: 'ci script' } }))
    await optimize(me.token, 'Write a haiku about exports')
    await optimize(other.token, 'Someone else’s prompt')
    await sqlRun(
      t.storage,
      `INSERT INTO payments (id, provider, provider_payment_id, user_id, kind, subscription_id, amount, currency, grants_lifetime, paid_at, created_at)
       VALUES ('pay1', 'card', 'cs_123', $1, 'subscription', 'sub_9', '19.00', 'USD', false, $2, $2)`,
      [me.user.id, new Date('2026-03-01T12:00:00.000Z')],
    )

    const res = await t.request('/api/user/export', { token: me.token })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('application/json')
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="promptlib-data-\d{4}-\d{2}-\d{2}\.json"$/)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const text = await res.text()
    const body = JSON.parse(text)
    expect(Object.keys(body)).toEqual([
      'format',
      'version',
      'exported_at',
      'account',
      'subscription',
      'favorites',
      'tokens',
      'optimizer_history',
      'payments',
    ])
    expect(body).toMatchObject({
      format: 'promptlib-user-export',
      version: 1,
      account: { id: me.user.id, email: me.email, name: 'Exporter', tier: 'pro', providers: ['password'] },
      subscription: { tier: 'pro' },
      favorites: [{ prompt_id: PROMPT, title: 'Welcome email sequence', category_id: 'marketing', created_at: expect.any(String) }],
      tokens: [{ token_id: pat.token_id, name: 'ci script', created_at: expect.any(String), expires_at: pat.expires_at, last_used_at: null }],
      optimizer_history: [{ mode: 'enhance', prompt: 'Write a haiku about exports', status: 'completed', engine: 'builtin' }],
      payments: [
        {
          id: 'pay1',
          provider: 'card',
          provider_payment_id: 'cs_123',
          kind: 'subscription',
          subscription_id: 'sub_9',
          amount: '19.00',
          currency: 'USD',
          grants_lifetime: false,
          paid_at: '2026-03-01T12:00:00.000Z',
        },
      ],
    })
    expect(body.favorites).toHaveLength(1)
    expect(body.optimizer_history).toHaveLength(1)
    // Never a secret: not the token, not its hash, not the password hash.
    expect(text).not.toContain(pat.token)
    expect(text).not.toContain(pat.token.slice(9))
    expect(text).not.toMatch(/hash|argon2|secret/i)
  })

  test('every entry, beyond one page of the listing endpoints', async () => {
    const me = await register(t)
    await setTier(t, me.user.id, 'lifetime')
    for (let i = 0; i < 105; i++) await optimize(me.token, `prompt number ${i}`)
    const body = await json(await t.request('/api/user/export', { token: me.token }))
    expect(body.optimizer_history).toHaveLength(105)
    expect(body.optimizer_history[0].prompt).toBe('prompt number 104')
  }, 30_000)

  test('a personal access token is refused (403 jwt_required); no token 401', async () => {
    const me = await register(t)
    await setTier(t, me.user.id, 'pro')
    const pat = await json(await t.request('/api/user/tokens', { method: 'POST', token: me.token, json: { name: 'script' } }))
    await problem(await t.request('/api/user/export', { token: pat.token }), 403, 'jwt_required')
    const res = await t.request('/api/user/export')
    await problem(res, 401, 'missing_token')
  })

  test('in the OpenAPI document, JWT only, with its attachment', async () => {
    const doc = await json(await t.request('/api/openapi.json'))
    const op = doc.paths['/api/user/export'].get
    expect(op.security).toEqual([{ bearer: [] }])
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '403']))
    expect(op.description).toContain('Content-Disposition: attachment')
  })
})
