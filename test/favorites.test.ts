// Favorites: add, list, remove; favorite_count exact under concurrency (contract section 6).
import { beforeAll, describe, expect, test } from 'bun:test'
import { json, makeTestApp, problem, register, type Registered } from './support/app'
import { favoriteCount as storedFavoriteCount, loadTestCatalogue, promptIds } from './support/catalogue'

const t = await makeTestApp()
let ids: string[] = []
let alice: Registered
let bob: Registered

beforeAll(async () => {
  await loadTestCatalogue(t)
  ids = await promptIds(t)
  alice = await register(t)
  bob = await register(t)
})

const add = (token: string, body: unknown) => t.request('/api/user/favorites', { method: 'POST', token, json: body })
const list = (token: string, q = '') => t.request(`/api/user/favorites${q}`, { token })
const remove = (token: string, id: string) => t.request(`/api/user/favorites/${id}`, { method: 'DELETE', token })
const favoriteCount = (id: string) => storedFavoriteCount(t, id)

describe('favorites', async () => {
  test('POST → 201 {prompt_id, created_at}; again → 200 with the same body; counted once', async () => {
    const id = ids[0]!
    const first = await add(alice.token, { prompt_id: id })
    expect(first.status).toBe(201)
    const body = await json(first)
    expect(body).toEqual({ prompt_id: id, created_at: expect.stringMatching(/Z$/) })
    const again = await add(alice.token, { prompt_id: id.toUpperCase() })
    expect(again.status).toBe(200)
    expect(await json(again)).toEqual(body)
    expect(await favoriteCount(id)).toBe(1)
  })

  test('GET lists newest first with title and category; another user sees only their own', async () => {
    await add(alice.token, { prompt_id: ids[1]! })
    await Bun.sleep(2)
    await add(alice.token, { prompt_id: ids[2]! })
    const body = await json(await list(alice.token))
    expect(body).toMatchObject({ total: 3, limit: 20, offset: 0 })
    expect(body.items.map((f: { prompt_id: string }) => f.prompt_id)).toEqual([ids[2], ids[1], ids[0]])
    expect(Object.keys(body.items[0]).sort()).toEqual(['category_id', 'created_at', 'prompt_id', 'title'])
    expect((await json(await list(alice.token, '?limit=1&offset=1'))).items[0].prompt_id).toBe(ids[1])
    expect(await json(await list(bob.token))).toEqual({ items: [], total: 0, limit: 20, offset: 0 })
    await problem(await remove(bob.token, ids[0]!), 404, 'not_found')
  })

  test('DELETE → 204, then 404; the count follows', async () => {
    const id = ids[5]!
    await add(bob.token, { prompt_id: id })
    expect(await favoriteCount(id)).toBe(1)
    expect((await remove(bob.token, id)).status).toBe(204)
    expect(await favoriteCount(id)).toBe(0)
    await problem(await remove(bob.token, id), 404, 'not_found')
  })

  test('bad input: unknown prompt 404; not a UUID, missing, extra or wrong-typed fields 422; no token 401', async () => {
    await problem(await add(alice.token, { prompt_id: '99999999-9999-4999-8999-999999999999' }), 404, 'not_found')
    for (const body of [
      {},
      { prompt_id: 'nope' },
      { prompt_id: 42 },
      { prompt_id: null },
      { prompt_id: ids[0], extra: 1 },
      { prompt_id: `${ids[0]}'--` },
      { prompt_id: '🙂' },
      [ids[0]],
    ]) {
      await problem(await add(alice.token, body), 422, 'validation_failed')
    }
    await problem(await remove(alice.token, 'not-a-uuid'), 422, 'validation_failed')
    await problem(await list(alice.token, '?limit=0'), 422, 'validation_failed')
    await problem(await t.request('/api/user/favorites'), 401, 'missing_token')
    await problem(await t.request('/api/user/favorites', { method: 'POST', json: { prompt_id: ids[0] } }), 401, 'missing_token')
  })

  test('favorite_count stays exact under concurrent adds and removes; account deletion takes its favorites along', async () => {
    const id = ids[10]!
    const users = await Promise.all(Array.from({ length: 12 }, () => register(t)))
    await Promise.all(users.flatMap((u) => [add(u.token, { prompt_id: id }), add(u.token, { prompt_id: id })]))
    expect(await favoriteCount(id)).toBe(12)
    await Promise.all(users.slice(0, 5).flatMap((u) => [remove(u.token, id), remove(u.token, id), add(users[11]!.token, { prompt_id: id })]))
    expect(await favoriteCount(id)).toBe(7)
    expect((await t.request('/api/user/me', { method: 'DELETE', token: users[11]!.token })).status).toBe(204)
    expect(await favoriteCount(id)).toBe(6)
    expect((await json(await t.request(`/api/prompts/${id}`, { token: users[6]!.token }))).favorite_count).toBe(6)
  })
})
