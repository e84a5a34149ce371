// What a sign-in at a provider yields: who signed in, or why it failed. Apart from client.ts, so
// the service and routes do not load Arctic on a server with no provider configured.

export type FailureCode =
  | 'access_denied'
  | 'invalid_state'
  | 'invalid_grant'
  | 'provider_unavailable'
  | 'provider_error'
  | 'email_unverified'
  | 'server_error'

/** Why a sign-in ended without a token: `code` goes to the frontend, `reason` to the log (never a token or a code). */
export class SignInFailure extends Error {
  constructor(
    readonly code: FailureCode,
    readonly reason: string,
  ) {
    super(reason)
    this.name = 'SignInFailure'
  }
}

/** Who the provider says signed in. */
export interface ProviderProfile {
  /** the provider's user id: OIDC `sub`, or GitHub's numeric `id` as text */
  subject: string
  /** the address as the provider reported it, or null */
  email: string | null
  /** true only when the provider says so (OIDC `email_verified`; GitHub: the primary, verified address) */
  emailVerified: boolean
  name: string | null
}
