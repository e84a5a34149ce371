// One provider's side of a sign-in, over Arctic's generic OAuth2Client (endpoints from
// providers.ts, so the presets and any override take the same path): the authorization URL
// with PKCE (S256), the code exchange, the user info and, GitHub-style, the e-mail list.
// Every failure becomes a SignInFailure with a stable code; nothing here logs or keeps a token.
import {
  ArcticFetchError,
  CodeChallengeMethod,
  generateCodeVerifier,
  generateState,
  OAuth2Client,
  OAuth2RequestError,
  UnexpectedErrorResponseBodyError,
  UnexpectedResponseError,
} from 'arctic'
import { readAtMost } from '../../http/body'
import { CONTROL_CHARS } from '../../http/text'
import type { ProviderSettings } from './providers'
import { type ProviderProfile, SignInFailure } from './sign-in'

/** A provider's answers are read up to this size; anything larger is not a user-info document. */
const MAX_ANSWER_BYTES = 1024 * 1024
const MAX_SUBJECT = 255

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
/** A provider's error code, fit for a log line (the provider chose it, so it is trimmed to a harmless shape). */
const safeCode = (code: unknown) => (typeof code === 'string' ? code.replace(/[^A-Za-z0-9_.:-]/g, '?').slice(0, 64) : 'none')

/** Settles with `promise`, or rejects when `signal` aborts first (for calls that take no signal of their own). */
function beforeDeadline<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason)
    signal.addEventListener('abort', abort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort)
        resolve(value)
      },
      (error) => {
        signal.removeEventListener('abort', abort)
        reject(error)
      },
    )
  })
}

const timedOut = (error: unknown) => error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')

/** The token endpoint's refusals and breakdowns, sorted into what the user can do about them. */
function exchangeFailure(error: unknown): SignInFailure {
  if (timedOut(error)) return new SignInFailure('provider_unavailable', 'token endpoint: no answer before the deadline')
  if (error instanceof ArcticFetchError) return new SignInFailure('provider_unavailable', 'token endpoint: not reachable')
  if (error instanceof OAuth2RequestError) return new SignInFailure('invalid_grant', `token endpoint refused the code: ${safeCode(error.code)}`)
  // 400/401 without an RFC 6749 error body: still a refusal of this code (a reused code, for one).
  if (error instanceof UnexpectedErrorResponseBodyError) {
    return error.status === 400 || error.status === 401
      ? new SignInFailure('invalid_grant', `token endpoint refused the code: HTTP ${error.status}`)
      : new SignInFailure('provider_error', `token endpoint: unexpected answer, HTTP ${error.status}`)
  }
  if (error instanceof UnexpectedResponseError) {
    return error.status >= 500
      ? new SignInFailure('provider_unavailable', `token endpoint: HTTP ${error.status}`)
      : new SignInFailure('provider_error', `token endpoint: unexpected answer, HTTP ${error.status}`)
  }
  return new SignInFailure('provider_error', 'token endpoint: unexpected answer')
}

/** GET a JSON document with the access token; bounded in size and time. */
async function getJson(url: string, accessToken: string, signal: AbortSignal, what: string): Promise<unknown> {
  let response: Response
  try {
    response = await fetch(url, {
      // GitHub's API refuses requests without a User-Agent.
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json', 'user-agent': 'promptlib' },
      signal,
      redirect: 'error',
    })
  } catch (error) {
    throw new SignInFailure('provider_unavailable', timedOut(error) ? `${what}: no answer before the deadline` : `${what}: not reachable`)
  }
  try {
    if (!response.ok) {
      throw new SignInFailure(response.status >= 500 ? 'provider_unavailable' : 'provider_error', `${what}: HTTP ${response.status}`)
    }
    const declared = Number(response.headers.get('content-length') ?? 0)
    if (declared > MAX_ANSWER_BYTES) throw new SignInFailure('provider_error', `${what}: answer of ${declared} bytes`)
    const bytes = await readAtMost(response.body, MAX_ANSWER_BYTES)
    if (bytes === null) throw new SignInFailure('provider_error', `${what}: answer over ${MAX_ANSWER_BYTES} bytes`)
    try {
      return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
    } catch {
      throw new SignInFailure('provider_error', `${what}: the answer is not JSON`)
    }
  } catch (error) {
    if (error instanceof SignInFailure) throw error
    throw new SignInFailure('provider_unavailable', timedOut(error) ? `${what}: no answer before the deadline` : `${what}: the answer broke off`)
  } finally {
    if (!response.bodyUsed) await response.body?.cancel().catch(() => {})
  }
}

function subjectOf(info: Record<string, unknown>): string | null {
  const raw =
    typeof info.sub === 'string'
      ? info.sub
      : typeof info.id === 'string' || (typeof info.id === 'number' && Number.isSafeInteger(info.id))
        ? String(info.id)
        : null
  return raw !== null && raw !== '' && raw.length <= MAX_SUBJECT && !CONTROL_CHARS.test(raw) ? raw : null
}

/**
 * An address as the provider reports it, or null: one with a control character is no address
 * (and PostgreSQL could not even store the NUL it may hold, where the identity records it).
 */
const addressOf = (value: unknown): string | null => (typeof value === 'string' && value !== '' && !CONTROL_CHARS.test(value) ? value : null)

const firstString = (...values: unknown[]) => values.find((v): v is string => typeof v === 'string' && v.trim() !== '') ?? null

/** GitHub's /user/emails: the primary address, when it is verified. */
function primaryVerified(list: unknown): string | null {
  if (!Array.isArray(list)) throw new SignInFailure('provider_error', 'e-mail list: not a list')
  const primary = list.find((e) => isObject(e) && e.primary === true)
  return isObject(primary) && primary.verified === true ? addressOf(primary.email) : null
}

export function providerClient(settings: ProviderSettings) {
  const client = new OAuth2Client(settings.clientId, settings.clientSecret, settings.redirectUri)

  return {
    /** A new flow's state and PKCE verifier (Arctic's, 32 random bytes each). */
    flowSecrets: () => ({ state: generateState(), codeVerifier: generateCodeVerifier() }),

    authorizationUrl: (state: string, codeVerifier: string): URL =>
      client.createAuthorizationURLWithPKCE(settings.authorizeUrl, state, CodeChallengeMethod.S256, codeVerifier, settings.scopes),

    /** Exchanges the code (once) and reads who signed in; throws SignInFailure. */
    async profile(code: string, codeVerifier: string, signal: AbortSignal): Promise<ProviderProfile> {
      let accessToken: string
      try {
        // Arctic's request takes no signal: the deadline ends our wait, not its socket (Bun's idle timeout does).
        const tokens = await beforeDeadline(client.validateAuthorizationCode(settings.tokenUrl, code, codeVerifier), signal)
        // GitHub answers a refused code with HTTP 200 and an `error` field.
        if ('error' in tokens.data)
          throw new SignInFailure('invalid_grant', `token endpoint refused the code: ${safeCode((tokens.data as { error?: unknown }).error)}`)
        accessToken = tokens.accessToken()
      } catch (error) {
        if (error instanceof SignInFailure) throw error
        if (error instanceof Error && /access_token/.test(error.message))
          throw new SignInFailure('provider_error', 'token endpoint: no access token in the answer')
        throw exchangeFailure(error)
      }

      const info = await getJson(settings.userinfoUrl, accessToken, signal, 'user info')
      if (!isObject(info)) throw new SignInFailure('provider_error', 'user info: not a JSON object')
      const subject = subjectOf(info)
      if (subject === null) throw new SignInFailure('provider_error', 'user info: no usable user id (sub or id)')
      const name = firstString(info.name, info.preferred_username, info.login)

      if (settings.emailsUrl !== null) {
        const email = primaryVerified(await getJson(settings.emailsUrl, accessToken, signal, 'e-mail list'))
        return { subject, email, emailVerified: email !== null, name }
      }
      const email = addressOf(info.email)
      // Some providers send the flag as the string "true".
      return { subject, email, emailVerified: email !== null && (info.email_verified === true || info.email_verified === 'true'), name }
    },
  }
}

export type ProviderClient = ReturnType<typeof providerClient>
