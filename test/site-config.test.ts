// GET /api/config: the configured sign-in and payment providers and the tier table, for clients
// (the web app draws its sign-in buttons, plans and checkout buttons from it).
import { describe, expect, test } from 'bun:test'
import { json, makeTestApp } from './support/app'

describe('GET /api/config', () => {
  test('nothing configured: no providers, no payments, the tier table of SPEC "Limits"', async () => {
    const t = await makeTestApp()
    const res = await t.request('/api/config')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('application/json')
    expect(await json(res)).toEqual({
      sign_in: { providers: [] },
      payments: { card: [], wallet: [], lifetime_price: '199.00', currency: 'USD' },
      tiers: [
        { id: 'free', prompts_per_day: 10, optimizations_per_day: 3, api_access: false, skills_access: false, max_tokens: 0 },
        { id: 'starter', prompts_per_day: null, optimizations_per_day: 10, api_access: true, skills_access: false, max_tokens: 1 },
        { id: 'pro', prompts_per_day: null, optimizations_per_day: null, api_access: true, skills_access: true, max_tokens: 3 },
        { id: 'lifetime', prompts_per_day: null, optimizations_per_day: null, api_access: true, skills_access: true, max_tokens: 5 },
      ],
    })
  })

  test('configured providers: presets by name, an overridden slot by its host; tiers on sale by price and plan', async () => {
    const t = await makeTestApp({
      OAUTH_A_CLIENT_ID: 'a',
      OAUTH_A_CLIENT_SECRET: 'a-secret',
      OAUTH_B_CLIENT_ID: 'b',
      OAUTH_B_CLIENT_SECRET: 'b-secret',
      OAUTH_B_AUTHORIZE_URL: 'https://sso.example.com/realms/acme/protocol/openid-connect/auth',
      OAUTH_B_TOKEN_URL: 'https://sso.example.com/realms/acme/protocol/openid-connect/token',
      OAUTH_B_USERINFO_URL: 'https://sso.example.com/realms/acme/protocol/openid-connect/userinfo',
      STRIPE_SECRET_KEY: 'sk_test_x',
      STRIPE_WEBHOOK_SECRET: 'whsec_x',
      STRIPE_PRICE_PRO: 'price_pro',
      STRIPE_PRICE_LIFETIME: 'price_lifetime',
      PAYPAL_CLIENT_ID: 'pp',
      PAYPAL_CLIENT_SECRET: 'pp-secret',
      PAYPAL_PLAN_STARTER: 'P-1',
      LIFETIME_PRICE: '149.00',
      CURRENCY: 'eur',
    })
    const body = await json(await t.request('/api/config'))
    expect(body.sign_in.providers).toEqual([
      { id: 'provider-a', name: 'Google' },
      { id: 'provider-b', name: 'sso.example.com' },
    ])
    expect(body.payments).toEqual({ card: ['pro', 'lifetime'], wallet: ['starter', 'lifetime'], lifetime_price: '149.00', currency: 'EUR' })
  })

  test('in the OpenAPI document', async () => {
    const t = await makeTestApp()
    const doc = await json(await t.request('/api/openapi.json'))
    const op = doc.paths['/api/config']?.get
    expect(op?.responses['200']).toBeDefined()
    expect(op.security).toBeUndefined()
  })
})
