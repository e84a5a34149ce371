// One prompt: its text, a form for its {{variables}} that fills the template as you type, copy,
// favorite, and the daily limit said plainly to anonymous and free readers (what is left today,
// when it resets), from the RateLimit-* headers the API sends with a metered answer.
import { useEffect, useMemo, useState } from 'preact/hooks'
import { ApiError, call, type Prompt, sendJson } from '../api'
import { emptyVariables, fillSegments, fillTemplate, humanize, initialValues, type Values, valueOf } from '../lib/template'
import { clock, duration } from '../lib/time'
import { navigate } from '../router'
import { favorites, useSession } from '../session'
import { CopyButton, ErrorNotice, Field, Loading, Notice, Page, useApi } from '../ui'
import { categories } from './browse'

export interface Meter {
  limit: number
  remaining: number
  /** when the counter resets */
  resetsAt: Date
}

/** The daily limit from a metered answer's headers; null for an unlimited caller (no headers). */
export function readMeter(headers: Headers): Meter | null {
  const limit = Number(headers.get('ratelimit-limit'))
  const remaining = Number(headers.get('ratelimit-remaining'))
  const reset = Number(headers.get('ratelimit-reset'))
  if (!headers.has('ratelimit-limit') || !Number.isFinite(limit) || !Number.isFinite(remaining)) return null
  return { limit, remaining, resetsAt: new Date(Date.now() + (Number.isFinite(reset) ? reset : 0) * 1000) }
}

function DailyLimit({ meter, signedIn }: { meter: Meter; signedIn: boolean }) {
  const seconds = Math.max(0, Math.round((meter.resetsAt.getTime() - Date.now()) / 1000))
  return (
    <aside class="meter" aria-labelledby="meter-text">
      <p id="meter-text">
        <strong>
          {meter.remaining} of {meter.limit}
        </strong>{' '}
        free prompt views left today ({signedIn ? 'your account' : 'this network address'}). Resets at {clock(meter.resetsAt)} (in {duration(seconds)}
        ).
      </p>
      <meter min={0} max={meter.limit} value={meter.limit - meter.remaining} aria-labelledby="meter-text" />
      <p class="hint">
        Opening a prompt again the same day is free.{' '}
        {signedIn ? (
          <>
            <a href="/billing">Starter and above</a> are unlimited.
          </>
        ) : (
          <>
            <a href="/register">A free account</a> gets its own {meter.limit} a day; <a href="/billing">paid plans</a> are unlimited.
          </>
        )}
      </p>
    </aside>
  )
}

function LimitReached({ error, signedIn }: { error: ApiError; signedIn: boolean }) {
  const limit = Number(error.problem.limit ?? 10)
  const resetsAt = typeof error.problem.resets_at === 'string' ? new Date(error.problem.resets_at) : null
  const seconds = resetsAt ? Math.max(0, Math.round((resetsAt.getTime() - Date.now()) / 1000)) : null
  return (
    <Page title="Daily limit reached">
      <Notice kind="warning">
        <p>
          You have opened {limit} of {limit} free prompts today{signedIn ? '' : ' from this network address'}.
          {resetsAt && seconds !== null && (
            <>
              {' '}
              The limit resets at {clock(resetsAt)} (in {duration(seconds)}).
            </>
          )}
        </p>
        <p>Prompts you already opened today still open. Browsing and search stay free.</p>
        <p>
          {signedIn ? (
            <a class="button" href="/billing">
              Upgrade for unlimited prompts
            </a>
          ) : (
            <>
              <a class="button" href="/register">
                Create a free account
              </a>{' '}
              (its own {limit} a day) or <a href="/billing">see the plans</a>.
            </>
          )}
        </p>
      </Notice>
    </Page>
  )
}

function FavoriteButton({ prompt, onCount }: { prompt: Prompt; onCount: (delta: number) => void }) {
  const session = useSession()
  const [favorite, setFavorite] = useState<boolean | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  useEffect(() => {
    if (!session.token) return
    let live = true
    favorites().then(
      (ids) => live && setFavorite(ids.has(prompt.id)),
      () => live && setFavorite(false),
    )
    return () => void (live = false)
  }, [prompt.id, session.token])
  if (!session.token) {
    return (
      <a class="button secondary" href={`/login?next=${encodeURIComponent(`/p/${prompt.id}`)}`}>
        Log in to save as a favorite
      </a>
    )
  }
  const toggle = async () => {
    if (busy) return
    setBusy(true)
    setError(null)
    try {
      const ids = await favorites()
      if (favorite) {
        await sendJson('DELETE', `/user/favorites/${prompt.id}`, undefined)
        ids.delete(prompt.id)
        onCount(-1)
      } else {
        const res = await call('/user/favorites', { method: 'POST', json: { prompt_id: prompt.id } })
        ids.add(prompt.id)
        if (res.status === 201) onCount(1)
      }
      setFavorite(!favorite)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      {/* aria-disabled, not disabled, while it waits: a disabled button drops the keyboard's focus. */}
      <button type="button" class="secondary" aria-pressed={favorite === true} disabled={favorite === null} aria-disabled={busy} onClick={toggle}>
        <span aria-hidden="true">{favorite ? '★ ' : '☆ '}</span>
        {favorite ? 'Favorite' : 'Add to favorites'}
      </button>
      {error !== null && <ErrorNotice error={error} />}
    </>
  )
}

function VariablesForm({ prompt, values, setValues }: { prompt: Prompt; values: Values; setValues: (v: Values) => void }) {
  return (
    <form class="variables" aria-labelledby="variables-heading" onSubmit={(e) => e.preventDefault()}>
      <h2 id="variables-heading">Fill in the variables</h2>
      {prompt.variables.map((v) => {
        const id = `var-${v.name}`
        const set = (value: string) => setValues({ ...values, [v.name]: value })
        const label = (
          <>
            {humanize(v.name)} <code>{`{{${v.name}}}`}</code>
          </>
        )
        return (
          <Field key={v.name} id={id} label={label} hint={v.default ? `Default: ${v.default}` : undefined}>
            {(describedBy) =>
              v.options ? (
                <select id={id} value={valueOf(values, v.name)} aria-describedby={describedBy} onChange={(e) => set(e.currentTarget.value)}>
                  {v.options.map((option) => (
                    <option key={option} value={option}>
                      {option}
                    </option>
                  ))}
                </select>
              ) : (
                <textarea
                  id={id}
                  dir="auto"
                  rows={2}
                  value={valueOf(values, v.name)}
                  aria-describedby={describedBy}
                  onInput={(e) => set(e.currentTarget.value)}
                />
              )
            }
          </Field>
        )
      })}
      <button type="button" class="secondary" onClick={() => setValues(initialValues(prompt.variables))}>
        Reset the values
      </button>
    </form>
  )
}

function PromptView({ prompt: loaded, meter }: { prompt: Prompt; meter: Meter | null }) {
  const session = useSession()
  const [prompt, setPrompt] = useState(loaded)
  const [values, setValues] = useState<Values>(() => initialValues(loaded.variables))
  const tree = useApi(() => categories(), [])
  const segments = useMemo(() => fillSegments(prompt.content, values), [prompt.content, values])
  const filled = useMemo(() => fillTemplate(prompt.content, values), [prompt.content, values])
  const empty = emptyVariables(prompt.variables, values)
  const category = tree.data?.items.find((c) => c.id === prompt.category_id)
  const subcategory = category?.subcategories.find((s) => s.id === prompt.subcategory_id)
  return (
    <Page title={prompt.title} lead={prompt.description}>
      <p class="meta">
        <a href={`/c/${prompt.category_id}`}>{category?.name ?? prompt.category_id}</a>
        {prompt.subcategory_id && (
          <>
            {' › '}
            <a href={`/c/${prompt.category_id}?sub=${prompt.subcategory_id}`}>{subcategory?.name ?? prompt.subcategory_id}</a>
          </>
        )}
        {prompt.tags.map((tag) => (
          <a key={tag} class="tag" href={`/c/${prompt.category_id}?tag=${encodeURIComponent(tag)}`}>
            #{tag}
          </a>
        ))}
        <span class="favorites-count">
          <span aria-hidden="true">★</span> {prompt.favorite_count} <span class="visually-hidden">favorites</span>
        </span>
      </p>
      {meter && <DailyLimit meter={meter} signedIn={session.token !== null} />}
      <div class={prompt.variables.length > 0 ? 'prompt-layout' : ''}>
        {prompt.variables.length > 0 && <VariablesForm prompt={prompt} values={values} setValues={setValues} />}
        <section aria-labelledby="text-heading" class="prompt-text-section">
          <h2 id="text-heading">{prompt.variables.length > 0 ? 'Your prompt' : 'Prompt'}</h2>
          <pre class="prompt-text" id="prompt-text" dir="auto">
            {segments.map((s, i) =>
              s.kind === 'text' ? (
                s.text
              ) : (
                <span key={i} class={s.kind === 'value' ? 'filled' : 'placeholder'} data-variable={s.name}>
                  {s.text}
                </span>
              ),
            )}
          </pre>
          {empty.length > 0 && (
            <p class="hint">
              {empty.length === 1 ? '1 variable is' : `${empty.length} variables are`} still empty ({empty.join(', ')}):{' '}
              {empty.length === 1 ? 'it stays' : 'they stay'} written as <code>{'{{name}}'}</code> in the copy.
            </p>
          )}
          <div class="actions">
            <CopyButton text={filled} label="Copy prompt" class="primary" />
            <FavoriteButton prompt={prompt} onCount={(delta) => setPrompt({ ...prompt, favorite_count: prompt.favorite_count + delta })} />
            <button type="button" class="secondary" onClick={() => navigate('/optimizer', { state: { prompt: filled } })}>
              Optimize this prompt
            </button>
          </div>
        </section>
      </div>
    </Page>
  )
}

export function PromptPage({ id }: { id: string }) {
  const session = useSession()
  const loaded = useApi(
    async (signal) => {
      const response = await call(`/prompts/${encodeURIComponent(id)}`, { signal })
      return { prompt: (await response.json()) as Prompt, meter: readMeter(response.headers) }
    },
    [id, session.token],
  )
  if (loaded.error instanceof ApiError && loaded.error.code === 'daily_limit_reached') {
    return <LimitReached error={loaded.error} signedIn={session.token !== null} />
  }
  if (loaded.error) {
    const missing = loaded.error instanceof ApiError && (loaded.error.status === 404 || loaded.error.status === 422)
    return (
      <Page title={missing ? 'Prompt not found' : 'This prompt could not be opened'}>
        <ErrorNotice error={loaded.error} retry={loaded.reload} />
        <p>
          <a href="/">Browse the library</a>
        </p>
      </Page>
    )
  }
  if (!loaded.data) return <Loading what="Loading the prompt" />
  return <PromptView key={loaded.data.prompt.id} prompt={loaded.data.prompt} meter={loaded.data.meter} />
}
