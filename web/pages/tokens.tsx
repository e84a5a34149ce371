// Personal access tokens: create one (its secret shown once, with a copy button), list, revoke.
import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import { getJson, sendJson, type Token } from '../api'
import { day, dayAndTime } from '../lib/time'
import { useSession } from '../session'
import { CopyButton, ErrorNotice, Field, fieldError, Loading, Notice, Page, SignInPrompt, UpgradePrompt, useApi, useFocusSwap } from '../ui'

interface Created {
  token_id: string
  token: string
  name: string
  expires_at: string
}

function TokenRow({ token, onRevoked }: { token: Token; onRevoked: () => void }) {
  const [confirming, setConfirming] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const expired = new Date(token.expires_at).getTime() < Date.now()
  // The focus follows the swap between "Revoke…" and its confirmation, both ways.
  const { opener: ask, opened: sure } = useFocusSwap<HTMLButtonElement, HTMLButtonElement>(confirming)
  const revoke = async () => {
    setBusy(true)
    setError(null)
    try {
      await sendJson('DELETE', `/user/tokens/${encodeURIComponent(token.token_id)}`, undefined)
      onRevoked()
    } catch (e) {
      setError(e)
      setBusy(false)
    }
  }
  return (
    <li class="card token" data-token-id={token.token_id}>
      <h3>{token.name}</h3>
      <dl class="facts">
        <dt>Created</dt>
        <dd>{day(token.created_at)}</dd>
        <dt>{expired ? 'Expired' : 'Expires'}</dt>
        <dd>{day(token.expires_at)}</dd>
        <dt>Last used</dt>
        <dd>{token.last_used_at ? dayAndTime(token.last_used_at) : 'never'}</dd>
      </dl>
      {error !== null && <ErrorNotice error={error} />}
      {confirming ? (
        <div class="actions" role="group" aria-label={`Revoke ${token.name}?`} onKeyDown={(e) => e.key === 'Escape' && !busy && setConfirming(false)}>
          <button type="button" class="danger" ref={sure} aria-disabled={busy} onClick={() => !busy && revoke()}>
            Revoke {token.name} now
          </button>
          <button type="button" class="secondary" disabled={busy} onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </div>
      ) : (
        <button type="button" class="secondary" ref={ask} onClick={() => setConfirming(true)}>
          Revoke…
        </button>
      )}
    </li>
  )
}

export function TokensPage() {
  const session = useSession()
  const list = useApi(async (signal) => (session.token ? (await getJson<{ items: Token[] }>('/user/tokens', { signal })).items : []), [session.token])
  const [name, setName] = useState('')
  const [days, setDays] = useState('90')
  const [created, setCreated] = useState<Created | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  // The new secret takes the focus (which selects it, ready to copy); when it is put away, the form has it back.
  const secret = useRef<HTMLInputElement>(null)
  const nameInput = useRef<HTMLInputElement>(null)
  const shown = useRef(false)
  const listHeading = useRef<HTMLHeadingElement>(null)
  useLayoutEffect(() => {
    if (created) secret.current?.focus()
    else if (shown.current) nameInput.current?.focus()
    shown.current = created !== null
  }, [created])
  if (!session.token) {
    return (
      <Page title="Access tokens">
        <SignInPrompt what="create tokens for scripts" />
      </Page>
    )
  }
  const me = session.me
  // A revoked token's row goes with its buttons: the focus waits on the list's heading, and an
  // error about the limit it lifted goes too.
  const revoked = () => {
    listHeading.current?.focus()
    setError(null)
    list.reload()
  }
  const create = async (e: Event) => {
    e.preventDefault()
    if (busy) return
    setBusy(true)
    setError(null)
    try {
      const answer = await sendJson<Created>('POST', '/user/tokens', { name, expires_in_days: Number(days) })
      setCreated(answer)
      setName('')
      list.reload()
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  return (
    <Page
      title="Access tokens"
      lead={
        <>
          Personal access tokens let scripts call the <a href="/api/docs">API</a> as you: send one as <code>Authorization: Bearer …</code>.
        </>
      }
    >
      {me && !me.limits.api_access && <UpgradePrompt tier="starter" what="Creating access tokens" />}
      {created && (
        <section class="card secret" aria-labelledby="secret-heading">
          <h2 id="secret-heading">Your new token “{created.name}”</h2>
          <Notice kind="warning">Copy it now: it is shown only this once, and the server keeps only a hash of it.</Notice>
          <label for="new-token">Token (expires {day(created.expires_at)})</label>
          <input id="new-token" ref={secret} class="secret-value" readOnly value={created.token} onFocus={(e) => e.currentTarget.select()} />
          <div class="actions">
            <CopyButton text={created.token} label="Copy token" class="primary" />
            <button type="button" class="secondary" onClick={() => setCreated(null)}>
              I have saved it
            </button>
          </div>
        </section>
      )}
      {(!me || me.limits.api_access) && (
        <section class="card" aria-labelledby="create-heading">
          <h2 id="create-heading">Create a token</h2>
          <form class="stack narrow" onSubmit={create}>
            {error !== null && !fieldError(error, 'name') && !fieldError(error, 'expires_in_days') && <ErrorNotice error={error} />}
            <Field id="token-name" label="Name" hint="What it is for, e.g. “CI” or “laptop”." error={fieldError(error, 'name')}>
              {(d) => (
                <input
                  id="token-name"
                  ref={nameInput}
                  required
                  maxLength={100}
                  value={name}
                  aria-describedby={d}
                  onInput={(e) => setName(e.currentTarget.value)}
                />
              )}
            </Field>
            <Field id="token-days" label="Expires after (days)" hint="1 to 365; 90 is advised." error={fieldError(error, 'expires_in_days')}>
              {(d) => (
                <input
                  id="token-days"
                  type="number"
                  min={1}
                  max={365}
                  required
                  value={days}
                  aria-describedby={d}
                  onInput={(e) => setDays(e.currentTarget.value)}
                />
              )}
            </Field>
            {/* aria-disabled, not disabled, while it waits: a disabled button drops the keyboard's focus. */}
            <button type="submit" class="primary" aria-disabled={busy}>
              Create token
            </button>
            {me && (
              <p class="hint">
                Your plan allows {me.limits.max_tokens} {me.limits.max_tokens === 1 ? 'token' : 'tokens'} at once.
              </p>
            )}
          </form>
        </section>
      )}
      <section aria-labelledby="list-heading">
        <h2 id="list-heading" tabIndex={-1} ref={listHeading}>
          Your tokens
        </h2>
        {list.error ? (
          <ErrorNotice error={list.error} retry={list.reload} />
        ) : !list.data ? (
          <Loading what="Loading your tokens" />
        ) : list.data.length === 0 ? (
          <p>No tokens yet.</p>
        ) : (
          <ul class="list tokens">
            {list.data.map((token) => (
              <TokenRow key={token.token_id} token={token} onRevoked={revoked} />
            ))}
          </ul>
        )}
      </section>
    </Page>
  )
}
