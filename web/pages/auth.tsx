// Signing up, logging in (e-mail and password, or a configured provider), and the page a provider
// sign-in ends on: /auth/callback, with the token or the error in the URL fragment.
import { useEffect, useState } from 'preact/hooks'
import { ApiError, sendJson } from '../api'
import { navigate, useLocation } from '../router'
import { signIn, siteConfig } from '../session'
import { ErrorNotice, Field, fieldError, Loading, Notice, Page, useApi } from '../ui'

/**
 * Where to go after signing in: a path on this site only (never another origin). The URL parser
 * drops tabs and line breaks anywhere (`/\t/evil.example` is `//evil.example`) and reads `\` as
 * `/`: control characters are refused, and the path must still resolve to this origin.
 */
export function safeNext(raw: string | null | undefined): string {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\') || /[\u0000-\u001f\u007f]/.test(raw)) return '/'
  const here = 'https://promptlib.invalid'
  try {
    if (new URL(raw, here).origin !== here) return '/'
  } catch {
    return '/'
  }
  return raw
}

function ProviderButtons({ next }: { next: string }) {
  const config = useApi(() => siteConfig(), [])
  const providers = config.data?.sign_in.providers ?? []
  if (providers.length === 0) return null
  return (
    <section class="providers" aria-labelledby="providers-heading">
      <h2 id="providers-heading">Or continue with</h2>
      <ul>
        {providers.map((p) => (
          <li key={p.id}>
            {/* The server starts the flow (a redirect to the provider); the token comes back to /auth/callback. */}
            <a class="button secondary provider" href={`/api/auth/${p.id}?redirect=${encodeURIComponent(next)}`}>
              Continue with {p.name}
            </a>
          </li>
        ))}
      </ul>
    </section>
  )
}

function AuthForm({ mode }: { mode: 'login' | 'register' }) {
  const loc = useLocation()
  const next = safeNext(loc.query.get('next'))
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [name, setName] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const register = mode === 'register'
  const submit = async (e: Event) => {
    e.preventDefault()
    if (busy) return
    setBusy(true)
    setError(null)
    try {
      const body = register ? { email, password, name } : { email, password }
      const answer = await sendJson<{ access_token: string }>('POST', register ? '/auth/register' : '/auth/login', body, { token: null })
      await signIn(answer.access_token)
      // The sign-in form leaves the history: Back goes to the page before it, not to a form for someone signed in.
      navigate(next, { replace: true, focus: true })
    } catch (err) {
      setError(err)
      setBusy(false)
    }
  }
  const problem = error instanceof ApiError ? error : null
  const passwordError = problem?.code === 'weak_password' ? problem.problem.detail : fieldError(error, 'password')
  const generalError = problem && !problem.problem.errors && problem.code !== 'weak_password' ? error : null
  const suffix = next !== '/' ? `?next=${encodeURIComponent(next)}` : ''
  return (
    <Page title={register ? 'Create an account' : 'Log in'}>
      <form class="stack narrow" onSubmit={submit} noValidate={false}>
        {generalError !== null && <ErrorNotice error={generalError} />}
        {register && (
          <Field id="name" label="Name" error={fieldError(error, 'name')}>
            {(d) => (
              <input
                id="name"
                name="name"
                autocomplete="name"
                required
                maxLength={100}
                value={name}
                aria-describedby={d}
                onInput={(e) => setName(e.currentTarget.value)}
              />
            )}
          </Field>
        )}
        <Field id="email" label="E-mail" error={fieldError(error, 'email')}>
          {(d) => (
            <input
              id="email"
              name="email"
              type="email"
              autocomplete="email"
              required
              value={email}
              aria-describedby={d}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field
          id="password"
          label="Password"
          hint={register ? 'At least 8 characters; a long phrase is best. Not your e-mail, not a common password.' : undefined}
          error={passwordError}
        >
          {(d) => (
            <input
              id="password"
              name="password"
              type="password"
              autocomplete={register ? 'new-password' : 'current-password'}
              required
              minLength={register ? 8 : undefined}
              maxLength={128}
              value={password}
              aria-describedby={d}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </Field>
        {/* aria-disabled, not disabled, while it waits: a disabled button drops the keyboard's focus. */}
        <button type="submit" class="primary" aria-disabled={busy}>
          {register ? 'Create account' : 'Log in'}
        </button>
        <p>
          {register ? (
            <>
              Already have an account? <a href={`/login${suffix}`}>Log in</a>
            </>
          ) : (
            <>
              New here? <a href={`/register${suffix}`}>Create a free account</a>
            </>
          )}
        </p>
      </form>
      <ProviderButtons next={next} />
    </Page>
  )
}

export const LoginPage = () => <AuthForm mode="login" />
export const RegisterPage = () => <AuthForm mode="register" />

const CALLBACK_ERRORS: Record<string, string> = {
  access_denied: 'The sign-in was cancelled at the provider.',
  invalid_state: 'The sign-in took too long or was started in another browser. Please try again.',
  invalid_grant: 'The provider did not accept the sign-in. Please try again.',
  provider_unavailable: 'The provider could not be reached. Please try again in a moment.',
  provider_error: 'The provider answered something this server could not use.',
  email_unverified: 'The provider does not vouch for an e-mail address on your account; verify one there, or sign up with e-mail and password.',
  server_error: 'Something went wrong on our side.',
}

export function CallbackPage() {
  // Read once: the fragment leaves the address bar at once, so the token is not kept in history.
  const [outcome] = useState(() => {
    const params = new URLSearchParams(location.hash.slice(1))
    history.replaceState(null, '', location.pathname)
    return {
      token: params.get('access_token'),
      error: params.get('error'),
      description: params.get('error_description'),
      redirect: safeNext(params.get('redirect')),
    }
  })
  const [failure, setFailure] = useState<unknown>(null)
  useEffect(() => {
    if (!outcome.token) return
    signIn(outcome.token).then(
      (me) => (me ? navigate(outcome.redirect, { replace: true }) : setFailure(new Error('The new session was not accepted.'))),
      setFailure,
    )
  }, [])
  if (outcome.token && failure === null) return <Loading what="Signing you in" />
  return (
    <Page title="Sign-in failed">
      {failure !== null ? (
        <ErrorNotice error={failure} />
      ) : (
        <Notice kind="error">
          <p>
            {(outcome.error !== null && Object.hasOwn(CALLBACK_ERRORS, outcome.error) ? CALLBACK_ERRORS[outcome.error] : null) ??
              outcome.description ??
              'The sign-in did not complete.'}
          </p>
          {outcome.error && <p class="hint">Code: {outcome.error}</p>}
        </Notice>
      )}
      <p>
        <a href="/login">Back to log in</a>
      </p>
    </Page>
  )
}
