// The optimizer: pick a mode, watch the rewrite stream in (Server-Sent Events over a POST), stop
// it, compare original and result side by side, and look back through earlier runs.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import { ApiError, call, getJson, type HistoryEntry, isAbort, type Mode, type Page as ApiPage } from '../api'
import { type Piece, sideBySide, summary } from '../lib/diff'
import { SseParser } from '../lib/sse'
import { clock, dayAndTime, duration } from '../lib/time'
import { useLocation } from '../router'
import { refreshMe, useSession } from '../session'
import { CopyButton, ErrorNotice, Field, Loading, Notice, Page, SignInPrompt, useApi } from '../ui'

/** How long after a Stop the history is read again (the server records the stop within milliseconds). */
const STOP_RECORDED_MS = 750

const MAX_PROMPT = 20_000

type RunStatus = 'streaming' | 'done' | 'stopped' | 'failed'

interface Run {
  status: RunStatus
  original: string
  mode: string
  text: string
  /** a failure: an API refusal before the stream, or the stream's own `error` event */
  error: unknown
  outputTokens: number | null
  remaining: number | null
}

function Pieces({ pieces, tag }: { pieces: Piece[] | null; tag: 'del' | 'ins' }) {
  if (!pieces) return null
  const Changed = tag
  return <>{pieces.map((p, i) => (p.changed ? <Changed key={i}>{p.text}</Changed> : p.text))}</>
}

export function DiffView({ before, after }: { before: string; after: string }) {
  const rows = useMemo(() => sideBySide(before, after), [before, after])
  const counts = summary(rows)
  return (
    <div class="diff-wrap">
      <p class="hint">
        {counts.added} {counts.added === 1 ? 'line' : 'lines'} added, {counts.changed} changed, {counts.removed} removed. Removed text is struck
        through on the left, added text underlined on the right.
      </p>
      <table class="diff">
        <caption class="visually-hidden">The original prompt and the optimized one, line by line</caption>
        <thead>
          <tr>
            <th scope="col">Original</th>
            <th scope="col">Optimized</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i} class={`diff-${row.kind}`}>
              <td data-side="Original" dir="auto">
                <Pieces pieces={row.left} tag="del" />
              </td>
              <td data-side="Optimized" dir="auto">
                <Pieces pieces={row.right} tag="ins" />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function failureText(error: unknown): string | null {
  if (error instanceof ApiError && error.code === 'daily_limit_reached') {
    const resetsAt = typeof error.problem.resets_at === 'string' ? new Date(error.problem.resets_at) : null
    const seconds = resetsAt ? Math.max(0, Math.round((resetsAt.getTime() - Date.now()) / 1000)) : 0
    return `You have used all ${error.problem.limit ?? ''} optimizations of your plan today.${resetsAt ? ` They reset at ${clock(resetsAt)} (in ${duration(seconds)}).` : ''}`
  }
  return null
}

/** "1 optimization", "3 optimizations". */
const optimizations = (n: number) => `${n} optimization${n === 1 ? '' : 's'}`

function History({ round, labels }: { round: number; labels: Map<string, string> }) {
  const session = useSession()
  const [limit, setLimit] = useState(10)
  const history = useApi(
    async (signal) => (session.token ? await getJson<ApiPage<HistoryEntry>>(`/optimizer/history?limit=${limit}`, { signal }) : null),
    [session.token, limit, round],
  )
  const [open, setOpen] = useState<Set<string>>(new Set())
  if (!session.token) return null
  return (
    <section aria-labelledby="history-heading" class="history">
      <h2 id="history-heading">History</h2>
      {history.error ? (
        <ErrorNotice error={history.error} retry={history.reload} />
      ) : !history.data ? (
        <Loading what="Loading your history" />
      ) : history.data.items.length === 0 ? (
        <p>No optimizations yet.</p>
      ) : (
        <>
          <ul class="list">
            {history.data.items.map((entry) => (
              <li key={entry.id} class="card">
                <details
                  onToggle={(e) => {
                    const next = new Set(open)
                    if (e.currentTarget.open) next.add(entry.id)
                    else next.delete(entry.id)
                    setOpen(next)
                  }}
                >
                  <summary>
                    <strong>{labels.get(entry.mode) ?? entry.mode}</strong> · {dayAndTime(entry.created_at)} · {entry.status}
                    <span class="muted">
                      {' '}
                      · {entry.prompt.slice(0, 80)}
                      {entry.prompt.length > 80 ? '…' : ''}
                    </span>
                  </summary>
                  {open.has(entry.id) &&
                    (entry.optimized_prompt !== null ? (
                      <>
                        <DiffView before={entry.prompt} after={entry.optimized_prompt} />
                        <CopyButton text={entry.optimized_prompt} label="Copy the optimized prompt" />
                      </>
                    ) : (
                      <pre class="prompt-text" dir="auto">
                        {entry.prompt}
                      </pre>
                    ))}
                </details>
              </li>
            ))}
          </ul>
          {history.data.total > history.data.items.length && (
            <button type="button" class="secondary" onClick={() => setLimit(Math.min(100, limit + 10))} disabled={limit >= 100}>
              Show more ({history.data.total - history.data.items.length} older)
            </button>
          )}
        </>
      )}
    </section>
  )
}

export function OptimizerPage() {
  const session = useSession()
  const loc = useLocation()
  const modes = useApi((signal) => getJson<{ items: Mode[] }>('/optimizer/modes', { signal }), [])
  const [prompt, setPrompt] = useState(() => {
    const state = loc.state as { prompt?: unknown } | null
    return typeof state?.prompt === 'string' ? state.prompt : ''
  })
  const [mode, setMode] = useState('enhance')
  const [targetModel, setTargetModel] = useState('')
  const [run, setRun] = useState<Run | null>(null)
  const [historyRound, setHistoryRound] = useState(0)
  const controller = useRef<AbortController | null>(null)
  const streaming = run?.status === 'streaming'
  // The Optimize button is disabled while a stream runs, and Stop after it: the focus, which would be
  // left on nothing, goes to Stop when a stream starts and to the result when it ends.
  const stop = useRef<HTMLButtonElement>(null)
  const resultHeading = useRef<HTMLHeadingElement>(null)
  const status = run?.status
  useLayoutEffect(() => {
    if (!status) return
    const active = document.activeElement
    const lost = !active || active === document.body
    if (status === 'streaming') {
      if (lost || active?.getAttribute('type') === 'submit') stop.current?.focus()
    } else if (lost || active === stop.current) resultHeading.current?.focus()
  }, [status])
  // Leaving the page stops a stream still running (the server then records it as aborted).
  useEffect(() => () => controller.current?.abort(), [])

  const start = async (e: Event) => {
    e.preventDefault()
    const abort = new AbortController()
    controller.current = abort
    const original = prompt
    let current: Run = { status: 'streaming', original, mode, text: '', error: null, outputTokens: null, remaining: null }
    const set = (changes: Partial<Run>) => {
      current = { ...current, ...changes }
      setRun(current)
    }
    set({})
    try {
      const body: Record<string, string> = { prompt: original, mode }
      if (mode === 'model-specific' && targetModel.trim()) body.target_model = targetModel.trim()
      const response = await call('/optimizer/optimize', { method: 'POST', json: body, signal: abort.signal })
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
      const parser = new SseParser()
      let ended = false
      while (!ended) {
        const { done, value } = await reader.read()
        if (done) break
        for (const event of parser.push(value)) {
          const data = JSON.parse(event.data || 'null')
          if (event.event === 'delta') set({ text: current.text + String(data?.text ?? '') })
          else if (event.event === 'done') {
            set({
              status: 'done',
              text: String(data.optimized_prompt ?? current.text),
              outputTokens: data.usage?.output_tokens ?? null,
              remaining: data.remaining_today ?? null,
            })
            ended = true
          } else if (event.event === 'error') {
            set({
              status: 'failed',
              error: new ApiError({ status: 200, code: String(data?.code), detail: String(data?.detail ?? 'The optimization failed.') }),
            })
            ended = true
          }
        }
      }
      if (!ended)
        set({ status: 'failed', error: new ApiError({ status: 0, code: 'stream_cut', detail: 'The stream ended before the rewrite was complete.' }) })
      reader.cancel().catch(() => {})
    } catch (error) {
      if (isAbort(error)) {
        set({ status: 'stopped' })
        // The server records the stop once it sees the connection close, a moment after this:
        // the history is read again then, or its entry would say "running" until the next run.
        setTimeout(() => setHistoryRound((r) => r + 1), STOP_RECORDED_MS)
      } else set({ status: 'failed', error })
    } finally {
      controller.current = null
      setHistoryRound((r) => r + 1)
      refreshMe().catch(() => {})
    }
  }

  const me = session.me
  const limit = me?.limits.optimizations_per_day ?? null
  const left = me && limit !== null ? Math.max(0, limit - me.usage.optimizations_today) : null
  const failure = run?.status === 'failed' ? failureText(run.error) : null
  const selectedMode = modes.data?.items.find((m) => m.id === mode)
  return (
    <Page
      title="Optimizer"
      lead="Rewrite a prompt so a model follows it better: pick a mode, watch the rewrite arrive, compare it with your original."
    >
      {!session.token && <SignInPrompt what="optimize prompts (free accounts get 3 a day)" />}
      {left !== null && (
        <p class="quota" role="status">
          {left} of {optimizations(limit!)} left today.
        </p>
      )}
      <form class="optimizer-form stack" onSubmit={start}>
        <Field id="opt-prompt" label="Your prompt" hint={`${[...prompt].length.toLocaleString()} of ${MAX_PROMPT.toLocaleString()} characters`}>
          {(d) => (
            <textarea
              id="opt-prompt"
              dir="auto"
              rows={8}
              required
              maxLength={MAX_PROMPT}
              value={prompt}
              aria-describedby={d}
              onInput={(e) => setPrompt(e.currentTarget.value)}
            />
          )}
        </Field>
        <fieldset class="modes">
          <legend>Mode</legend>
          {modes.error ? (
            <ErrorNotice error={modes.error} retry={modes.reload} />
          ) : !modes.data ? (
            <Loading what="Loading the modes" />
          ) : (
            modes.data.items.map((m) => (
              <label key={m.id} class="mode">
                <input type="radio" name="mode" value={m.id} checked={mode === m.id} onChange={() => setMode(m.id)} />
                <span>{m.label}</span>
              </label>
            ))
          )}
          {selectedMode && <p class="hint">{selectedMode.description}</p>}
        </fieldset>
        {mode === 'model-specific' && (
          <Field id="opt-target" label="Target model" hint="For example claude-3-5-sonnet, gpt-4o, gemini-1.5-pro or llama-3.">
            {(d) => (
              <input
                id="opt-target"
                maxLength={100}
                value={targetModel}
                aria-describedby={d}
                onInput={(e) => setTargetModel(e.currentTarget.value)}
              />
            )}
          </Field>
        )}
        <div class="actions">
          <button type="submit" class="primary" disabled={!session.token || streaming || !prompt.trim()}>
            Optimize
          </button>
          <button type="button" class="secondary" ref={stop} disabled={!streaming} onClick={() => controller.current?.abort()}>
            Stop
          </button>
        </div>
      </form>
      {run && (
        <section aria-labelledby="result-heading" class="result">
          <h2 id="result-heading" tabIndex={-1} ref={resultHeading}>
            Result
          </h2>
          <p role="status" class="run-status">
            {run.status === 'streaming'
              ? 'Optimizing…'
              : run.status === 'done'
                ? `Done${run.outputTokens !== null ? ` · ${run.outputTokens} tokens` : ''}${run.remaining !== null ? ` · ${optimizations(run.remaining)} left today` : ''}.`
                : run.status === 'stopped'
                  ? run.text
                    ? 'Stopped. What arrived before you stopped is below.'
                    : 'Stopped before any text arrived.'
                  : ''}
          </p>
          {run.status === 'failed' &&
            (failure ? (
              <Notice kind="warning">
                {failure} <a href="/billing">Upgrade for more</a>
              </Notice>
            ) : (
              <ErrorNotice error={run.error} />
            ))}
          {(run.text || run.status === 'streaming') && (
            <pre class="prompt-text optimized" id="optimized-text" dir="auto" aria-busy={streaming} aria-live="polite" aria-label="Optimized prompt">
              {run.text}
            </pre>
          )}
          {run.status === 'done' && (
            <>
              <div class="actions">
                <CopyButton text={run.text} label="Copy the optimized prompt" class="primary" />
                <button type="button" class="secondary" onClick={() => setPrompt(run.text)}>
                  Use as the new input
                </button>
              </div>
              <h3>Changes</h3>
              <DiffView before={run.original} after={run.text} />
            </>
          )}
        </section>
      )}
      <History round={historyRound} labels={new Map((modes.data?.items ?? []).map((m) => [m.id, m.label]))} />
    </Page>
  )
}
