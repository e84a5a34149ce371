// The account: tier, today's usage against the tier's limits, the password, and deleting it all.
import { useEffect, useState } from 'preact/hooks'
import { type Me, sendJson } from '../api'
import { clock, day, duration, secondsToUtcMidnight } from '../lib/time'
import { navigate } from '../router'
import { refreshMe, replaceToken, signOut, useSession } from '../session'
import { ErrorNotice, Field, fieldError, Loading, Notice, Page, SignInPrompt, TIER_NAMES, useFocusSwap } from '../ui'

function Usage({ label, used, limit }: { label: string; used: number; limit: number | null }) {
  const id = `usage-${label.replace(/\W+/g, '-').toLowerCase()}`
  return (
    <div class="usage">
      <p id={id}>
        {label}: <strong>{used}</strong> {limit === null ? '(unlimited)' : `of ${limit}`}
      </p>
      {limit !== null && <meter min={0} max={limit} value={Math.min(used, limit)} aria-labelledby={id} />}
    </div>
  )
}

function PasswordForm({ me }: { me: Me }) {
  const hasPassword = me.providers.includes('password')
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [done, setDone] = useState(false)
  const [busy, setBusy] = useState(false)
  const submit = async (e: Event) => {
    e.preventDefault()
    if (busy) return
    setBusy(true)
    setError(null)
    setDone(false)
    try {
      await sendJson('POST', '/user/password', hasPassword ? { current_password: current, new_password: next } : { new_password: next })
    } catch (err) {
      setError(err)
      setBusy(false)
      return
    }
    try {
      // Every login token issued before the change stops working, this one included: log in again with the new password.
      const answer = await sendJson<{ access_token: string }>('POST', '/auth/login', { email: me.email, password: next }, { token: null })
      replaceToken(answer.access_token)
      setCurrent('')
      setNext('')
      setDone(true)
    } catch {
      // The password did change; only the new login failed (the connection, say). This session's
      // token no longer works: the user logs in again, with the new password.
      signOut('Your password was changed. Log in again with the new one.')
    } finally {
      setBusy(false)
    }
  }
  const problem = error as { code?: string; problem?: { detail: string } } | null
  return (
    <section aria-labelledby="password-heading" class="card">
      <h2 id="password-heading">{hasPassword ? 'Change your password' : 'Set a password'}</h2>
      {!hasPassword && <p>Your account signs in through a provider. A password lets you also log in with your e-mail.</p>}
      <form class="stack narrow" onSubmit={submit}>
        {done && <Notice kind="success">Password changed. Other devices signed in with the old one must log in again.</Notice>}
        {error !== null && problem?.code !== 'weak_password' && problem?.code !== 'invalid_current_password' && <ErrorNotice error={error} />}
        {hasPassword && (
          <Field
            id="current-password"
            label="Current password"
            error={problem?.code === 'invalid_current_password' ? 'That is not your current password.' : null}
          >
            {(d) => (
              <input
                id="current-password"
                type="password"
                autocomplete="current-password"
                required
                value={current}
                aria-describedby={d}
                onInput={(e) => setCurrent(e.currentTarget.value)}
              />
            )}
          </Field>
        )}
        <Field
          id="new-password"
          label="New password"
          hint="At least 8 characters; a long phrase is best."
          error={problem?.code === 'weak_password' ? (problem.problem?.detail ?? null) : fieldError(error, 'new_password')}
        >
          {(d) => (
            <input
              id="new-password"
              type="password"
              autocomplete="new-password"
              required
              minLength={8}
              maxLength={128}
              value={next}
              aria-describedby={d}
              onInput={(e) => setNext(e.currentTarget.value)}
            />
          )}
        </Field>
        {/* aria-disabled, not disabled, while it waits: a disabled button drops the keyboard's focus. */}
        <button type="submit" class="primary" aria-disabled={busy}>
          {hasPassword ? 'Change password' : 'Set password'}
        </button>
      </form>
    </section>
  )
}

function DeleteAccount({ me }: { me: Me }) {
  const [open, setOpen] = useState(false)
  const [typed, setTyped] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  // The focus follows what the button opens and closes (the button itself is swapped out meanwhile).
  const { opener, opened: confirm } = useFocusSwap<HTMLButtonElement, HTMLInputElement>(open)
  const close = () => {
    setOpen(false)
    setTyped('')
    setError(null)
  }
  const remove = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    try {
      await sendJson('DELETE', '/user/me', undefined)
      signOut()
      navigate('/')
    } catch (err) {
      setError(err)
      setBusy(false)
    }
  }
  return (
    <section aria-labelledby="delete-heading" class="card danger-zone">
      <h2 id="delete-heading">Delete your account</h2>
      <p>This deletes your account, favorites, tokens and optimizer history at once. It cannot be undone; a paid subscription is not refunded.</p>
      {!open ? (
        <button type="button" class="danger" aria-expanded={false} ref={opener} onClick={() => setOpen(true)}>
          Delete my account…
        </button>
      ) : (
        <form class="stack narrow" onSubmit={remove} onKeyDown={(e) => e.key === 'Escape' && close()}>
          {error !== null && <ErrorNotice error={error} />}
          <Field id="confirm-email" label={`Type your e-mail (${me.email}) to confirm`}>
            {(d) => (
              <input
                id="confirm-email"
                ref={confirm}
                type="email"
                autocomplete="off"
                value={typed}
                aria-describedby={d}
                onInput={(e) => setTyped(e.currentTarget.value)}
              />
            )}
          </Field>
          <div class="actions">
            <button type="submit" class="danger" disabled={busy || typed.trim().toLowerCase() !== me.email}>
              Delete permanently
            </button>
            <button type="button" class="secondary" onClick={close}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </section>
  )
}

export function AccountPage() {
  const session = useSession()
  const [error, setError] = useState<unknown>(null)
  // Today's usage changes as the user works elsewhere: fresh on every visit.
  useEffect(() => {
    if (session.token) refreshMe().catch(setError)
  }, [session.token])
  if (!session.token) {
    return (
      <Page title="Account">
        <SignInPrompt what="see your account" />
      </Page>
    )
  }
  const me = session.me
  if (!me) {
    return (
      <Page title="Account">
        {error ? (
          <ErrorNotice
            error={error}
            retry={() => {
              setError(null)
              refreshMe().catch(setError)
            }}
          />
        ) : (
          <Loading what="Loading your account" />
        )}
      </Page>
    )
  }
  const reset = secondsToUtcMidnight()
  return (
    <Page title="Account">
      <section aria-labelledby="profile-heading" class="card">
        <h2 id="profile-heading">Profile</h2>
        <dl class="facts">
          <dt>Name</dt>
          <dd>{me.name}</dd>
          <dt>E-mail</dt>
          <dd>{me.email}</dd>
          <dt>Plan</dt>
          <dd>
            {TIER_NAMES[me.tier] ?? me.tier} · <a href="/billing">{me.tier === 'lifetime' ? 'Billing' : 'Change plan'}</a>
          </dd>
          <dt>Signs in with</dt>
          <dd>{me.providers.map((p) => (p === 'password' ? 'e-mail and password' : p)).join(', ') || '—'}</dd>
          <dt>Member since</dt>
          <dd>{day(me.created_at)}</dd>
        </dl>
      </section>
      <section aria-labelledby="usage-heading" class="card">
        <h2 id="usage-heading">Today's usage</h2>
        <Usage label="Prompts opened" used={me.usage.prompts_today} limit={me.limits.prompts_per_day} />
        <Usage label="Optimizations" used={me.usage.optimizations_today} limit={me.limits.optimizations_per_day} />
        <p class="hint">
          Counters reset at 00:00 UTC: {clock(new Date(Date.now() + reset * 1000))} your time, in {duration(reset)}.
        </p>
        <dl class="facts">
          <dt>API access (tokens)</dt>
          <dd>{me.limits.api_access ? `yes, up to ${me.limits.max_tokens} at once` : 'no (starter and above)'}</dd>
          <dt>Skills</dt>
          <dd>{me.limits.skills_access ? 'yes' : 'no (pro and lifetime)'}</dd>
        </dl>
      </section>
      <PasswordForm me={me} />
      <DeleteAccount me={me} />
    </Page>
  )
}
