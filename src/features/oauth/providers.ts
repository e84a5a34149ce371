// The two sign-in slots and their presets: provider-a is Google (OpenID Connect), provider-b is
// GitHub. OAUTH_{A,B}_* override any endpoint, so either slot can point at another OAuth 2.0 /
// OIDC provider (Keycloak, Authentik, GitLab, a company IdP) through the same code path.
import type { Config, OAuthProviderConfig } from '../../config'

export const PROVIDERS = ['provider-a', 'provider-b'] as const
export type ProviderName = (typeof PROVIDERS)[number]

export interface ProviderSettings {
  name: ProviderName
  clientId: string
  clientSecret: string
  authorizeUrl: string
  tokenUrl: string
  /** OIDC userinfo or GitHub's /user: the user's id (`sub` or `id`), name and e-mail */
  userinfoUrl: string
  /** a GitHub-style list of the user's addresses ([{email, primary, verified}]), or null */
  emailsUrl: string | null
  scopes: string[]
  /** where the provider sends the browser back: PUBLIC_URL + /api/auth/callback/<name> */
  redirectUri: string
}

interface Preset {
  authorizeUrl: string
  tokenUrl: string
  userinfoUrl: string
  emailsUrl: string | null
  scopes: string[]
}

const PRESETS: Record<ProviderName, Preset> = {
  'provider-a': {
    // Google, from https://accounts.google.com/.well-known/openid-configuration
    authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    userinfoUrl: 'https://openidconnect.googleapis.com/v1/userinfo',
    emailsUrl: null,
    scopes: ['openid', 'email', 'profile'],
  },
  'provider-b': {
    // GitHub: /user has no verified flag for its (public) e-mail; /user/emails does.
    authorizeUrl: 'https://github.com/login/oauth/authorize',
    tokenUrl: 'https://github.com/login/oauth/access_token',
    userinfoUrl: 'https://api.github.com/user',
    emailsUrl: 'https://api.github.com/user/emails',
    scopes: ['read:user', 'user:email'],
  },
}

const CONFIG_KEY: Record<ProviderName, 'a' | 'b'> = { 'provider-a': 'a', 'provider-b': 'b' }

export const callbackPath = (name: ProviderName) => `/api/auth/callback/${name}`

/** The slot's settings, or null when it is not configured (its routes answer 404). */
export function providerSettings(config: Pick<Config, 'oauth' | 'publicUrl'>, name: ProviderName): ProviderSettings | null {
  const configured: OAuthProviderConfig | null = config.oauth[CONFIG_KEY[name]]
  if (!configured) return null
  const preset = PRESETS[name]
  return {
    name,
    clientId: configured.clientId,
    clientSecret: configured.clientSecret,
    authorizeUrl: configured.authorizeUrl ?? preset.authorizeUrl,
    tokenUrl: configured.tokenUrl ?? preset.tokenUrl,
    userinfoUrl: configured.userinfoUrl ?? preset.userinfoUrl,
    // The preset's e-mail list belongs to the preset's user info: another provider's user info
    // brings its own e-mail unless OAUTH_*_EMAILS_URL names a list.
    emailsUrl: configured.emailsUrl ?? (configured.userinfoUrl === undefined ? preset.emailsUrl : null),
    scopes: configured.scopes ?? preset.scopes,
    redirectUri: `${config.publicUrl}${callbackPath(name)}`,
  }
}
