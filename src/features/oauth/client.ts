// One provider's side of a sign-in (endpoints from providers.ts, so the presets and any override
// take the same path): the authorization URL with PKCE (S256) from Arctic's generic OAuth2Client,
// then the code exchange, the user info and, GitHub-style, the e-mail list, each bounded in time
// and size.
// Every failure becomes a SignInFailure with a stable code; nothing here logs or keeps a token.
import { CodeChallengeMethod, generateCodeVerifier, generateState, OAuth2Client } from 'arctic'
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

const timedOut = (error: unknown) => error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')

/** A provider's request, bounded in time (`signal`) and never redirected: a redirect would carry the code or the token elsewhere. */
async function call(url: string, init: RequestInit, signal: AbortSignal, what: string): Promise<Response> {
  try {
    // A redirect comes back as the answer it is (3xx), which no caller accepts: provider_error.
    return await fetch(url, { ...init, signal, redirect: 'manual' })
  } catch (error) {
    throw new SignInFailure('provider_unavailable', timedOut(error) ? `${what}: no answer before the deadline` : `${what}: not reachable`)
  }
}

/** The answer's JSON, read up to MAX_ANSWER_BYTES before the deadline; `undefined` when it is not JSON. */
async function bodyJson(response: Response, what: string): Promise<unknown> {
  try {
    const declared = Number(response.headers.get('content-length') ?? 0)
    if (declared > MAX_ANSWER_BYTES) throw new SignInFailure('provider_error', `${what}: answer of ${declared} bytes`)
    const bytes = await readAtMost(response.body, MAX_ANSWER_BYTES)
    if (bytes === null) throw new SignInFailure('provider_error', `${what}: answer over ${MAX_ANSWER_BYTES} bytes`)
    try {
      return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
    } catch {
      return undefined
    }
  } catch (error) {
    if (error instanceof SignInFailure) throw error
    throw new SignInFailure('provider_unavailable', timedOut(error) ? `${what}: no answer before the deadline` : `${what}: the answer broke off`)
  } finally {
    if (!response.bodyUsed) await response.body?.cancel().catch(() => {})
  }
}

/**
 * The code exchange (RFC 6749 §4.1.3 with PKCE), as Arctic's validateAuthorizationCode sends it
 * (form body, client credentials in Basic auth), but sent here: Arctic's request takes no signal,
 * reads any size of answer and follows redirects. Returns the access token; throws SignInFailure.
 */
async function exchangeCode(settings: ProviderSettings, code: string, codeVerifier: string, signal: AbortSignal): Promise<string> {
  const what = 'token endpoint'
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: settings.redirectUri, code_verifier: codeVerifier })
  const credentials = Buffer.from(`${settings.clientId}:${settings.clientSecret}`).toString('base64')
  const response = await call(
    settings.tokenUrl,
    {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        authorization: `Basic ${credentials}`,
        // GitHub's API refuses requests without a User-Agent.
        'user-agent': 'promptlib',
      },
      body: form,
    },
    signal,
    what,
  )
  const { status } = response
  if (status >= 500) {
    await response.body?.cancel().catch(() => {})
    throw new SignInFailure('provider_unavailable', `${what}: HTTP ${status}`)
  }
  if (status !== 200 && status !== 400 && status !== 401) {
    await response.body?.cancel().catch(() => {})
    throw new SignInFailure('provider_error', `${what}: unexpected answer, HTTP ${status}`)
  }
  const data = await bodyJson(response, what)
  if (!isObject(data)) throw new SignInFailure('provider_error', `${what}: unexpected answer, HTTP ${status}`)
  // A refusal of this code (a reused one, for one): RFC 6749's 400/401, or GitHub's 200 with an `error` field.
  if (status !== 200 || 'error' in data)
    throw new SignInFailure(
      'invalid_grant',
      `${what} refused the code: ${status !== 200 && !('error' in data) ? `HTTP ${status}` : safeCode(data.error)}`,
    )
  if (typeof data.access_token !== 'string' || data.access_token === '')
    throw new SignInFailure('provider_error', `${what}: no access token in the answer`)
  return data.access_token
}

/** GET a JSON document with the access token; bounded in size and time. */
async function getJson(url: string, accessToken: string, signal: AbortSignal, what: string): Promise<unknown> {
  const response = await call(
    url,
    // GitHub's API refuses requests without a User-Agent.
    { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json', 'user-agent': 'promptlib' } },
    signal,
    what,
  )
  if (!response.ok) {
    await response.body?.cancel().catch(() => {})
    throw new SignInFailure(response.status >= 500 ? 'provider_unavailable' : 'provider_error', `${what}: HTTP ${response.status}`)
  }
  const data = await bodyJson(response, what)
  if (data === undefined) throw new SignInFailure('provider_error', `${what}: the answer is not JSON`)
  return data
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
      const accessToken = await exchangeCode(settings, code, codeVerifier, signal)
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
