// A real OAuth 2.0 / OpenID Connect server on loopback (oauth2-mock-server: authorization code
// with PKCE, signed tokens) playing provider-a (OIDC user info) or provider-b (GitHub-style
// /user and /user/emails, served by the same server). Tests register users; the one who "signs
// in" at /authorize is chosen with `login_hint`, and every later answer (the access token's
// `sub`, the user info, the e-mail list) follows from the code and the token, as at a real provider.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Events, OAuth2Server } from 'oauth2-mock-server'

export interface ProviderUser {
  sub: string
  email?: string | null
  /** OIDC only; true, false or the string some providers send */
  email_verified?: boolean | string
  name?: string
  /** GitHub-style providers: the list /user/emails answers */
  emails?: { email: string; primary: boolean; verified: boolean }[]
  /** the provider refuses: /authorize redirects back with error=access_denied */
  deny?: boolean
}

export type ProviderStyle = 'oidc' | 'github'

const decodeSub = (authorization: string | undefined): string | null => {
  const token = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1]
  const payload = token?.split('.')[1]
  if (!payload) return null
  try {
    return (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: string }).sub ?? null
  } catch {
    return null
  }
}

export class MockProvider {
  readonly server = new OAuth2Server()
  private readonly bySub = new Map<string, ProviderUser>()
  private readonly byCode = new Map<string, ProviderUser>()
  /** who signs in when /authorize is opened without a login_hint (a browser) */
  defaultUser: ProviderUser | null = null
  /** every request's method and path, e.g. to count token exchanges */
  readonly requests: string[] = []
  /** the next user-info (or /user) answer instead of the real one; cleared once used */
  nextUserinfo: { status: number; body: unknown } | null = null

  private constructor(readonly style: ProviderStyle) {}

  static async start(style: ProviderStyle, port = 0): Promise<MockProvider> {
    const provider = new MockProvider(style)
    await provider.server.issuer.keys.generate('RS256')
    provider.wire()
    await provider.server.start(port, '127.0.0.1')
    return provider
  }

  get url(): string {
    return this.server.issuer.url!
  }

  add(user: ProviderUser): ProviderUser {
    this.bySub.set(user.sub, user)
    return user
  }

  /** The OAUTH_<letter>_* variables that point a slot at this server. */
  env(letter: 'A' | 'B'): Record<string, string> {
    const p = `OAUTH_${letter}_`
    return {
      [`${p}CLIENT_ID`]: `client-${letter.toLowerCase()}`,
      [`${p}CLIENT_SECRET`]: `secret-${letter.toLowerCase()}`,
      [`${p}AUTHORIZE_URL`]: `${this.url}/authorize`,
      [`${p}TOKEN_URL`]: `${this.url}/token`,
      ...(this.style === 'oidc'
        ? { [`${p}USERINFO_URL`]: `${this.url}/userinfo` }
        : { [`${p}USERINFO_URL`]: `${this.url}/user`, [`${p}EMAILS_URL`]: `${this.url}/user/emails` }),
    }
  }

  async stop(): Promise<void> {
    await this.server.stop()
  }

  private userOf(req: IncomingMessage): ProviderUser | undefined {
    const sub = decodeSub(req.headers.authorization)
    return sub === null ? undefined : this.bySub.get(sub)
  }

  private wire(): void {
    const service = this.server.service
    service.on(Events.BeforeAuthorizeRedirect, (redirect, req) => {
      this.requests.push('GET /authorize')
      const hint = (req as IncomingMessage & { query?: Record<string, unknown> }).query?.login_hint
      const user = typeof hint === 'string' ? this.bySub.get(hint) : this.defaultUser
      const code = redirect.url.searchParams.get('code')
      if (user?.deny) {
        redirect.url.searchParams.delete('code')
        redirect.url.searchParams.set('error', 'access_denied')
        redirect.url.searchParams.set('error_description', 'The user denied the request')
      } else if (user && code) this.byCode.set(code, user)
    })
    service.on(Events.BeforeTokenSigning, (token, req) => {
      const user = this.byCode.get(String(req.body?.code ?? ''))
      if (user) token.payload.sub = user.sub
    })
    service.on(Events.BeforeResponse, () => void this.requests.push('POST /token'))

    const answer = (res: ServerResponse, status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    const override = (res: ServerResponse) => {
      const next = this.nextUserinfo
      if (!next) return false
      this.nextUserinfo = null
      answer(res, next.status, next.body)
      return true
    }

    // A consent page, as a real provider shows: the user clicks "Allow" on the provider's own site.
    service.addRoute('GET', '/consent', (req, res) => {
      const query = new URL(req.url ?? '/', 'http://x').search
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end(`<!doctype html><title>Consent</title><a id="allow" href="/authorize${query.replace(/"/g, '&quot;')}">Allow</a>`)
    })

    if (this.style === 'oidc') {
      service.on(Events.BeforeUserinfo, (response, req) => {
        this.requests.push('GET /userinfo')
        const next = this.nextUserinfo
        this.nextUserinfo = null
        const user = this.userOf(req)
        if (next) Object.assign(response, { statusCode: next.status, body: next.body })
        else if (!user) Object.assign(response, { statusCode: 401, body: { error: 'invalid_token' } })
        else response.body = { sub: user.sub, email: user.email, email_verified: user.email_verified, name: user.name }
      })
      return
    }
    // GitHub's API: /user (numeric id, login, the public e-mail without a verified flag) and /user/emails.
    service.addRoute('GET', '/user', (req, res) => {
      this.requests.push('GET /user')
      if (override(res)) return
      const user = this.userOf(req)
      if (!user) return answer(res, 401, { message: 'Bad credentials' })
      answer(res, 200, {
        id: /^\d+$/.test(user.sub) ? Number(user.sub) : user.sub,
        login: user.name?.replace(/\s+/g, '-').toLowerCase() ?? 'octocat',
        name: user.name ?? null,
        email: user.email ?? null,
      })
    })
    service.addRoute('GET', '/user/emails', (req, res) => {
      this.requests.push('GET /user/emails')
      const user = this.userOf(req)
      if (!user) return answer(res, 401, { message: 'Bad credentials' })
      answer(res, 200, user.emails ?? [])
    })
  }
}

// ---- driving a sign-in the way a browser does -------------------------------------------------

/** Anything with the test app's request(): a TestApp, or another instance on the same storage. */
interface Requester {
  request(path: string, init?: RequestInit): Promise<Response>
}

export interface StartedFlow {
  /** the `name=value` of the flow cookie, as a browser would send it back */
  cookie: string
  setCookie: string
  authorizeUrl: URL
}

export async function startFlow(t: Requester, provider: 'provider-a' | 'provider-b', query = ''): Promise<StartedFlow> {
  const res = await t.request(`/api/auth/${provider}${query}`)
  if (res.status !== 302) throw new Error(`start: expected 302, got ${res.status} ${await res.text()}`)
  const setCookie = res.headers.get('set-cookie') ?? ''
  return { cookie: setCookie.split(';')[0]!, setCookie, authorizeUrl: new URL(res.headers.get('location')!) }
}

/** The user `sub` consents at the provider; returns the callback URL the provider redirects to. */
export async function authorize(flow: StartedFlow, sub?: string): Promise<URL> {
  const url = new URL(flow.authorizeUrl)
  if (sub !== undefined) url.searchParams.set('login_hint', sub)
  const res = await fetch(url, { redirect: 'manual' })
  if (res.status !== 302) throw new Error(`authorize: expected 302, got ${res.status} ${await res.text()}`)
  return new URL(res.headers.get('location')!)
}

export interface Finished {
  res: Response
  location: URL
  /** the fragment's parameters: access_token & token_type, or error & error_description (& redirect) */
  fragment: URLSearchParams
}

export async function finishFlow(t: Requester, callbackUrl: URL, cookie?: string): Promise<Finished> {
  const res = await t.request(callbackUrl.pathname + callbackUrl.search, { headers: cookie ? { cookie } : {} })
  if (res.status !== 302) throw new Error(`callback: expected 302, got ${res.status} ${await res.text()}`)
  const location = new URL(res.headers.get('location')!)
  return { res, location, fragment: new URLSearchParams(location.hash.slice(1)) }
}

/** start → provider → callback, in one go. */
export async function signIn(t: Requester, provider: 'provider-a' | 'provider-b', sub: string, query = ''): Promise<Finished> {
  const flow = await startFlow(t, provider, query)
  return finishFlow(t, await authorize(flow, sub), flow.cookie)
}
