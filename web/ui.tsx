// Pieces every page uses: the page frame (title, heading, focus), notices, loading, copying,
// pagination, sign-in and upgrade prompts, and a hook for data loaded from the API.
import type { ComponentChildren } from 'preact'
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { ApiError, isAbort } from './api'
import { navigate, useLocation } from './router'

export function Page({ title, children, lead }: { title: string; children?: ComponentChildren; lead?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null)
  const loc = useLocation()
  useEffect(() => {
    document.title = `${title} · promptlib`
  }, [title])
  // After a navigation the new page's heading takes the focus, so a screen reader announces it and
  // the keyboard starts from the top of the new content. Typing in search keeps its focus.
  useEffect(() => {
    if (loc.focus) heading.current?.focus({ preventScroll: true })
  }, [loc.key])
  return (
    <>
      {/* Titles and leads come from the catalogue and its users, in any script: each takes its own direction. */}
      <h1 tabIndex={-1} ref={heading} dir="auto">
        {title}
      </h1>
      {lead && (
        <p class="lead" dir="auto">
          {lead}
        </p>
      )}
      {children}
    </>
  )
}

export function Notice({ kind, children }: { kind: 'error' | 'info' | 'success' | 'warning'; children: ComponentChildren }) {
  // Errors interrupt (role=alert); the rest is read when the reader is ready (role=status).
  return (
    <div class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  )
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p class="loading" role="status">
      {what}…
    </p>
  )
}

/** Whether trying the same call again may help: the server was not reached, or failed on its side. */
const transient = (error: unknown) => error instanceof ApiError && (error.status === 0 || error.status >= 500)

/** What went wrong, in words, with the next step where there is one (a "Try again" button when given `retry` and it may help). */
export function ErrorNotice({ error, retry }: { error: unknown; retry?: () => void }) {
  if (error instanceof ApiError) {
    if (error.code === 'upgrade_required') {
      return <UpgradePrompt tier={String(error.problem.required_tier ?? 'a higher')} what="This" />
    }
    if (error.status === 401) {
      return (
        <Notice kind="error">
          {error.problem.detail || 'Please log in.'} <a href={loginHref()}>Log in</a>
        </Notice>
      )
    }
    return (
      <Notice kind="error">
        {error.problem.detail || 'Something went wrong.'}
        {retry && transient(error) && (
          <>
            {' '}
            <button
              type="button"
              class="link-button"
              onClick={() => {
                // This notice (and often the page around it) goes as the retry starts: the focus
                // waits on the main content, which stays.
                document.getElementById('main')?.focus({ preventScroll: true })
                retry()
              }}
            >
              Try again
            </button>
          </>
        )}
      </Notice>
    )
  }
  return <Notice kind="error">Something went wrong in the app: {String((error as Error)?.message ?? error)}</Notice>
}

export function UpgradePrompt({ tier, what }: { tier: string; what: string }) {
  return (
    <div class="notice notice-upgrade" role="status">
      <p>
        {what} needs the <strong>{tier}</strong> plan or higher.
      </p>
      <p>
        <a class="button" href="/billing">
          See the plans
        </a>
      </p>
    </div>
  )
}

/** Where to come back to after logging in: here, unless here is a sign-in page itself. */
export function hereForNext(): string {
  // On the sign-in pages themselves, where they were already going to go back to.
  if (/^\/(login|register)\/?$/.test(location.pathname)) return new URLSearchParams(location.search).get('next') ?? '/'
  return location.pathname.startsWith('/auth/') ? '/' : location.pathname + location.search
}

/** A link to log in (or sign up) that comes back here afterwards. */
export const loginHref = (page: 'login' | 'register' = 'login') => {
  const next = hereForNext()
  return next === '/' ? `/${page}` : `/${page}?next=${encodeURIComponent(next)}`
}

export function SignInPrompt({ what }: { what: string }) {
  const next = encodeURIComponent(location.pathname + location.search)
  return (
    <div class="notice notice-info" role="status">
      <p>
        <a href={`/login?next=${next}`}>Log in</a> or <a href={`/register?next=${next}`}>create a free account</a> to {what}.
      </p>
    </div>
  )
}

/** Puts text on the clipboard; falls back to a hidden text area where the Clipboard API is missing (plain http). */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text)
    return
  }
  const area = document.createElement('textarea')
  area.value = text
  area.setAttribute('readonly', '')
  area.className = 'visually-hidden'
  document.body.append(area)
  area.select()
  const ok = document.execCommand('copy')
  area.remove()
  if (!ok) throw new Error('copy refused')
}

export function CopyButton({ text, label = 'Copy', class: className }: { text: string; label?: string; class?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle')
  useEffect(() => setState('idle'), [text])
  return (
    <span class="copy">
      <button
        type="button"
        class={className}
        onClick={async () => {
          try {
            await copyText(text)
            setState('copied')
          } catch {
            setState('failed')
          }
        }}
      >
        {label}
      </button>
      <span class="copy-status" role="status">
        {state === 'copied' ? 'Copied to the clipboard.' : state === 'failed' ? 'Could not copy; select the text and copy it yourself.' : ''}
      </span>
    </span>
  )
}

export function Pager({
  total,
  limit,
  offset,
  href,
  label,
}: {
  total: number
  limit: number
  offset: number
  href: (offset: number) => string
  label: string
}) {
  if (total <= limit && offset === 0) return null
  const last = Math.min(offset + limit, total)
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      {offset > 0 ? <a href={href(Math.max(0, offset - limit))}>← Previous</a> : <span aria-hidden="true" />}
      <span>{total === 0 ? 'none' : `${offset + 1}–${last} of ${total.toLocaleString()}${total >= 1000 ? '+' : ''}`}</span>
      {last < total ? <a href={href(offset + limit)}>Next →</a> : <span aria-hidden="true" />}
    </nav>
  )
}

/**
 * An offset at or past the end of a list that has items (its last one removed from the last page, an
 * old link, a shorter list since): the address moves to the list's last page instead of showing an
 * empty page with no way back. True meanwhile, so the page shows no "nothing here". `total` is
 * undefined while the list is loading.
 */
export function useLastPage(total: number | undefined, limit: number, offset: number, href: (offset: number) => string): boolean {
  const beyond = total !== undefined && total > 0 && offset > 0 && offset >= total
  useEffect(() => {
    if (beyond) navigate(href(Math.floor((total - 1) / limit) * limit), { replace: true, keepFocus: true })
  }, [beyond, total, offset])
  return beyond
}

export interface Loaded<T> {
  data: T | undefined
  error: unknown
  loading: boolean
  reload: () => void
  set: (data: T) => void
}

/**
 * Data from the API for a page: loaded when `deps` change; a newer load cancels an older one. The
 * request starts right after the render (a layout effect), not a frame later after the paint: search
 * as you type shows its results that much sooner.
 */
export function useApi<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: null, loading: true })
  const [round, setRound] = useState(0)
  useLayoutEffect(() => {
    const controller = new AbortController()
    setState((s) => ({ ...s, error: null, loading: true }))
    load(controller.signal).then(
      (data) => !controller.signal.aborted && setState({ data, error: null, loading: false }),
      (error) => !controller.signal.aborted && !isAbort(error) && setState({ data: undefined, error, loading: false }),
    )
    return () => controller.abort()
  }, [...deps, round])
  return { ...state, reload: () => setRound((r) => r + 1), set: (data) => setState({ data, error: null, loading: false }) }
}

/** A labelled select of [value, label] options (the filters and orders of listings and search). */
export function SelectField({
  id,
  label,
  value,
  options,
  onChange,
}: {
  id: string
  label: string
  value: string
  options: readonly (readonly [string, string])[]
  onChange: (value: string) => void
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {options.map(([option, text]) => (
          <option key={option} value={option}>
            {text}
          </option>
        ))}
      </select>
    </div>
  )
}

/** A form field: a label tied to its control, a hint and an error read with it (aria-describedby). */
export function Field({
  id,
  label,
  hint,
  error,
  children,
}: {
  id: string
  label: ComponentChildren
  hint?: ComponentChildren
  error?: string | null
  children: (describedBy: string | undefined) => ComponentChildren
}) {
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined
  return (
    <div class={`field${error ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      {children(described)}
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  )
}

/** The message for one field of a 422 (its `errors` entry whose path names the field). */
export function fieldError(error: unknown, field: string): string | null {
  if (!(error instanceof ApiError) || !error.problem.errors) return null
  return error.problem.errors.find((e) => e.path === `/${field}`)?.message ?? null
}

export const TIER_NAMES: Record<string, string> = { free: 'Free', starter: 'Starter', pro: 'Pro', lifetime: 'Lifetime' }

/**
 * Focus that follows a swap between a button and what it opens (a confirmation), both ways: the
 * element that had it is replaced meanwhile. Not on the first render.
 */
export function useFocusSwap<Opener extends HTMLElement, Opened extends HTMLElement>(open: boolean) {
  const opener = useRef<Opener>(null)
  const opened = useRef<Opened>(null)
  const moved = useRef(false)
  useLayoutEffect(() => {
    if (moved.current) (open ? opened : opener).current?.focus()
    moved.current = true
  }, [open])
  return { opener, opened }
}
