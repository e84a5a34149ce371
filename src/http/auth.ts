// The bearer guard every protected route uses. A token is turned into a Principal by an
// authenticator the composition root supplies (JWT today, PATs plug in beside it); the user's
// tier comes from the database on every request, never from the token.
// Routes opt in with macros: { auth: true }, { optionalAuth: true }, { minTier: 'pro' }, { jwtOnly: true }.
import { Elysia, type TSchema } from 'elysia'
import { type Tier, tierAtLeast } from '../tiers'
import { ProblemError, unauthorized } from './problem'
import { jsonBody } from './schemas'

export interface AuthUser {
  id: string
  email: string
  name: string
  tier: Tier
  createdAt: Date
}

export interface Principal {
  user: AuthUser
  via: 'jwt' | 'pat'
  /** the PAT's id when via === 'pat' */
  tokenId: string | null
  /** the JWT's `iat` when via === 'jwt' (work that outlives the request checks it is still valid) */
  issuedAt: number | null
}

/** Resolves a bearer token or throws a ProblemError (401, or 403 for a PAT without API access). */
export type BearerAuthenticator = (token: string) => Principal | Promise<Principal>

const MAX_TOKEN_LENGTH = 4096

/** The token from `Authorization: Bearer <token>`; the scheme is case-insensitive (RFC 7235). */
export function bearerToken(header: string | null): string {
  if (header === null) throw unauthorized('missing_token', 'Send an access token: Authorization: Bearer <token>.')
  const space = header.indexOf(' ')
  const scheme = space === -1 ? header : header.slice(0, space)
  if (scheme.toLowerCase() !== 'bearer') {
    throw unauthorized('missing_token', 'Only bearer tokens are accepted: Authorization: Bearer <token>.')
  }
  const token = space === -1 ? '' : header.slice(space + 1).trim()
  if (token === '' || token.length > MAX_TOKEN_LENGTH || /\s/.test(token)) {
    throw unauthorized('invalid_token', 'The bearer token is missing or malformed.')
  }
  return token
}

export function upgradeRequired(requiredTier: Tier): ProblemError {
  return new ProblemError(403, 'upgrade_required', `This feature needs the ${requiredTier} tier or higher.`, {
    required_tier: requiredTier,
  })
}

// The principal travels on the Request under a private symbol: cheaper than a WeakMap entry
// per request (no weak-table work for the garbage collector either).
const PRINCIPAL = Symbol('promptlib.principal')
type WithPrincipal = Request & { [PRINCIPAL]?: Principal | null }
const principals = {
  get: (request: Request) => (request as WithPrincipal)[PRINCIPAL],
  set: (request: Request, principal: Principal | null) => {
    ;(request as WithPrincipal)[PRINCIPAL] = principal
  },
}

/** The guard macros a route sets, as route options: `{ auth: true }`, `{ jwtOnly: true, minTier: 'starter' }`… */
export interface AuthRequirement {
  auth?: true
  optionalAuth?: true
  jwtOnly?: true
  minTier?: Tier
}

export function authGuard(authenticate: BearerAuthenticator) {
  // Authentication and permission checks run in the transform phase, before the request is
  // validated: a caller without the right credentials gets 401/403, never a 422 that reveals
  // the endpoint's schema. The resolve phase then hands the principal to the handler.
  // Routes with a body run the same checks earlier still, before the body is read (guard.jsonBody).

  // Macros combine ({ jwtOnly: true, minTier: 'starter' }); the token is checked once per request.
  const check =
    (extra?: (p: Principal) => void) =>
    async ({ request }: { request: Request }) => {
      let principal = principals.get(request)
      if (!principal) {
        principal = await authenticate(bearerToken(request.headers.get('authorization')))
        principals.set(request, principal)
      }
      extra?.(principal)
    }
  const optionalCheck = async ({ request }: { request: Request }) => {
    if (principals.get(request) !== undefined) return
    principals.set(request, request.headers.has('authorization') ? await authenticate(bearerToken(request.headers.get('authorization'))) : null)
  }
  const requireTier = (tier: Tier) => (p: Principal) => {
    if (!tierAtLeast(p.user.tier, tier)) throw upgradeRequired(tier)
  }
  const requireJwt = (p: Principal) => {
    if (p.via !== 'jwt') {
      throw new ProblemError(403, 'jwt_required', 'This action needs a login token (JWT); a personal access token cannot perform it.')
    }
  }
  const resolved = ({ request }: { request: Request }) => {
    const principal = principals.get(request)
    if (!principal) throw unauthorized('missing_token', 'Send an access token: Authorization: Bearer <token>.')
    return { principal, user: principal.user }
  }

  /** Every check of a requirement, in one step: authentication, then a JWT, then the tier. */
  const checksOf = (requirement: AuthRequirement) => {
    if (requirement.optionalAuth) return optionalCheck
    const tierCheck = requirement.minTier === undefined ? undefined : requireTier(requirement.minTier)
    return check((p) => {
      if (requirement.jwtOnly) requireJwt(p)
      tierCheck?.(p)
    })
  }

  const plugin = new Elysia({ name: 'auth-guard' }).macro({
    auth: { transform: check(), resolve: resolved },
    /**
     * For endpoints anonymous callers may use too: no Authorization header → principal null;
     * a header that is present must be valid (a bad token is a 401, never silently anonymous).
     */
    optionalAuth: {
      transform: optionalCheck,
      resolve({ request }) {
        const principal = principals.get(request) ?? null
        return { principal, user: principal?.user ?? null }
      },
    },
    minTier: (tier: Tier) => ({ transform: check(requireTier(tier)), resolve: resolved }),
    jwtOnly: { transform: check(requireJwt), resolve: resolved },
  })

  /**
   * Route options for a guarded route with a JSON body: the requirement's macros (they type
   * `user` and check again, at no cost, in transform) and the same checks run before the body
   * is read, so 401/403 come before 400/413/415/422 and nobody unauthenticated makes us read or
   * parse a megabyte. `{ ...guard.jsonBody({ jwtOnly: true }, schema) }` in place of
   * `{ jwtOnly: true, ...jsonBody(schema) }`, which would parse first.
   */
  function guardedJsonBody<const R extends AuthRequirement, T extends TSchema>(requirement: R, schema: T) {
    return { ...requirement, ...jsonBody(schema, checksOf(requirement)) }
  }

  // On the plugin itself, so routes keep one dependency: `.use(guard)` and `guard.jsonBody(…)`.
  return Object.assign(plugin, { jsonBody: guardedJsonBody })
}

export type AuthGuard = ReturnType<typeof authGuard>
