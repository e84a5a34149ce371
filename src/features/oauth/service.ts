// Sign-in through provider-a and provider-b (contract section 4): start a flow, finish it at
// the callback, find or create the account, and hand the frontend a JWT (or the reason there is
// none). Plain values in and out; the provider's side is client.ts, the identities are the store.
import { generateCodeVerifier, generateState } from 'arctic'
import type { Tx } from '../../db/storage'
import { ProblemError, validationFailed } from '../../http/problem'
import type { Logger } from '../../log'
import type { AccountsService, UserRecord } from '../accounts'
import type { TokensService } from '../tokens'
import { type ProviderClient, type ProviderProfile, SignInFailure } from './client'
import { FLOW_LIFETIME_SECONDS, type FlowSealer, sameState } from './flow-state'
import type { ProviderName } from './providers'
import type { IdentityKey, OAuthStore } from './store'

export interface ConfiguredProvider {
  client: ProviderClient
  /** the provider's user-info URL: identities are keyed by it too (see schema.sqlite.ts) */
  issuer: string
}

export interface OAuthDeps {
  store: OAuthStore
  transaction: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>
  accounts: Pick<AccountsService, 'byId' | 'findByEmail' | 'createVerified' | 'confirmEmail' | 'issueToken' | 'noteProviderLinked'>
  tokens: Pick<TokensService, 'revokeAll'>
  /** the configured slots; a missing one answers 404 */
  providers: Partial<Record<ProviderName, ConfiguredProvider>>
  sealer: FlowSealer
  /** FRONTEND_URL: the browser ends at <frontendUrl>/auth/callback#… */
  frontendUrl: string
  /** the longest the callback waits on the provider, all calls together */
  timeoutMs: number
  log: Logger
}

/** Where the callback sends the browser, and the sealed flow the start puts in its cookie. */
export interface Started {
  location: string
  sealedFlow: string
}

const DESCRIPTIONS: Record<SignInFailure['code'], string> = {
  access_denied: 'Sign-in was cancelled or refused at the provider.',
  invalid_state: 'This sign-in could not be verified: it expired, was started in another browser, or was already used. Please start again.',
  invalid_grant: 'The provider did not accept the sign-in (the code may have expired or been used already). Please start again.',
  provider_unavailable: 'The provider could not be reached or did not answer in time. Please try again later.',
  provider_error: 'The provider answered with something unexpected. Please try again later.',
  email_unverified: 'The provider did not confirm an e-mail address for this account. Verify one with the provider and try again.',
  server_error: 'Sign-in failed on our side. Please try again.',
}

const MAX_REDIRECT = 1024
const MAX_CODE = 4096

/**
 * `?redirect=`: a path on the frontend's own origin (`/prompts/42?tab=1`), never a URL that
 * leaves it: no scheme, no `//host`, no backslash (browsers read `/\host` as `//host`), no
 * blanks or control characters. Returns the path, null when absent, or throws a 422.
 */
export function redirectPath(raw: string | undefined, frontendUrl: string): string | null {
  if (raw === undefined || raw === '') return null
  const origin = new URL(frontendUrl).origin
  const ok =
    raw.length <= MAX_REDIRECT &&
    raw.startsWith('/') &&
    !raw.startsWith('//') &&
    !/[\\\s\u0000-\u001f\u007f]/.test(raw) &&
    new URL(raw, origin).origin === origin
  if (!ok) throw validationFailed([{ path: '/redirect', message: "must be a path on the frontend's own origin, such as /prompts" }])
  return raw
}

/** Thrown inside the linking transaction when a concurrent sign-in won a unique index; the whole link is tried again. */
class LostRace extends Error {}

export function createOAuthService(deps: OAuthDeps) {
  const { store, transaction, accounts, tokens, providers, sealer, frontendUrl, timeoutMs, log } = deps

  function configured(name: ProviderName): ConfiguredProvider {
    const provider = providers[name]
    if (!provider) throw new ProblemError(404, 'oauth_provider_disabled', `Sign-in through ${name} is not configured on this server.`)
    return provider
  }

  const fragmentUrl = (params: Record<string, string | null>) =>
    `${frontendUrl}/auth/callback#${Object.entries(params)
      .filter((entry): entry is [string, string] => entry[1] !== null)
      .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
      .join('&')}`

  /** Finds the account of a provider's user, linking or creating it; one transaction, so a link is all or nothing. */
  const link = (name: ProviderName, issuer: string, profile: ProviderProfile, requestId: string) =>
    transaction(async (tx): Promise<UserRecord> => {
      const key: IdentityKey = { provider: name, issuer, subject: profile.subject }
      const now = new Date()
      const identity = await store.find(key, tx)
      if (identity) {
        const user = await accounts.byId(identity.userId, tx)
        if (!user) throw new LostRace()
        await store.touch(key, profile.email, now, tx)
        return user
      }
      // A new identity joins an account only by an address the provider vouches for.
      if (profile.email === null || !profile.emailVerified) throw new SignInFailure('email_unverified', 'the provider reported no verified e-mail')
      let user = await accounts.findByEmail(profile.email, tx)
      if (user) {
        const confirmed = await accounts.confirmEmail(user.id, tx)
        if (!confirmed) throw new LostRace()
        if (confirmed.tookOver) {
          await tokens.revokeAll(user.id, tx)
          log.warn('oauth: an account whose e-mail was never proven was taken over by a verified sign-in', {
            request_id: requestId,
            provider: name,
            user_id: user.id,
          })
        }
        user = confirmed.user
      } else {
        user = await accounts.createVerified({ email: profile.email, name: profile.name }, tx)
        if (!user) throw new LostRace()
      }
      if (!(await store.insert({ ...key, userId: user.id, email: profile.email, createdAt: now, lastSignInAt: now }, tx))) throw new LostRace()
      await accounts.noteProviderLinked(user.id, name, tx)
      return user
    })

  async function linkWithRetry(name: ProviderName, issuer: string, profile: ProviderProfile, requestId: string): Promise<UserRecord> {
    try {
      return await link(name, issuer, profile, requestId)
    } catch (error) {
      if (!(error instanceof LostRace)) throw error
    }
    // The other sign-in has committed by now: this attempt finds what it made.
    try {
      return await link(name, issuer, profile, requestId)
    } catch (error) {
      if (error instanceof LostRace)
        throw new SignInFailure('email_unverified', 'the e-mail could not be used for an account (taken concurrently, or not a valid address)')
      throw error
    }
  }

  return {
    /** Throws 404 when the slot is not configured, 422 for a `redirect` that leaves the frontend. */
    start(name: ProviderName, redirect: string | undefined): Started {
      const { client } = configured(name)
      const path = redirectPath(redirect, frontendUrl)
      const state = generateState()
      const codeVerifier = generateCodeVerifier()
      const expiresAt = Math.floor(Date.now() / 1000) + FLOW_LIFETIME_SECONDS
      return {
        location: client.authorizationUrl(state, codeVerifier).toString(),
        sealedFlow: sealer.seal(name, { state, codeVerifier, redirect: path, expiresAt }),
      }
    },

    /**
     * The callback. Always a place to send the browser (throws only the 404 of an unconfigured
     * slot): the frontend with a token, or with `error` and `error_description`.
     */
    async finish(
      name: ProviderName,
      params: { code?: string; state?: string; error?: string },
      sealedFlow: string | undefined,
      requestId: string,
    ): Promise<{ location: string; ok: boolean }> {
      const provider = configured(name)
      let redirect: string | null = null
      try {
        const flow = sealer.open(name, sealedFlow)
        if (!flow) throw new SignInFailure('invalid_state', sealedFlow ? 'the flow cookie is expired, forged or damaged' : 'no flow cookie')
        if (!sameState(flow.state, params.state)) throw new SignInFailure('invalid_state', 'state does not match the flow cookie')
        redirect = flow.redirect
        if (params.error !== undefined) {
          const code =
            params.error === 'access_denied'
              ? 'access_denied'
              : params.error === 'temporarily_unavailable' || params.error === 'server_error'
                ? 'provider_unavailable'
                : 'provider_error'
          throw new SignInFailure(code, `the provider sent error=${params.error.replace(/[^A-Za-z0-9_.:-]/g, '?').slice(0, 64)}`)
        }
        if (!params.code || params.code.length > MAX_CODE) throw new SignInFailure('provider_error', 'no usable code in the callback')

        const profile = await provider.client.profile(params.code, flow.codeVerifier, AbortSignal.timeout(timeoutMs))
        const user = await linkWithRetry(name, provider.issuer, profile, requestId)
        return { ok: true, location: fragmentUrl({ access_token: accounts.issueToken(user), token_type: 'bearer', redirect }) }
      } catch (error) {
        const failure = error instanceof SignInFailure ? error : new SignInFailure('server_error', 'unexpected error')
        if (failure.code === 'server_error') log.error('oauth sign-in failed', { request_id: requestId, provider: name, code: failure.code, error })
        else log.warn('oauth sign-in failed', { request_id: requestId, provider: name, code: failure.code, reason: failure.reason })
        return { ok: false, location: fragmentUrl({ error: failure.code, error_description: DESCRIPTIONS[failure.code], redirect }) }
      }
    },

    /** The slots the user has linked (GET /api/user/me lists them in `providers`). */
  }
}

export type OAuthService = ReturnType<typeof createOAuthService>
