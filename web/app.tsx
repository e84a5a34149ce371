// The frame around every page (skip link, header with search and navigation, main, footer) and
// the table of client-side routes.
import { type ComponentChildren, Fragment, type JSX } from 'preact'
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { AccountPage } from './pages/account'
import { CallbackPage, LoginPage, RegisterPage } from './pages/auth'
import { BillingPage } from './pages/billing'
import { CategoryPage, HomePage } from './pages/browse'
import { FavoritesPage } from './pages/favorites'
import { OptimizerPage } from './pages/optimizer'
import { PromptPage } from './pages/prompt'
import { SearchPage } from './pages/search'
import { SkillPage, SkillsPage } from './pages/skills'
import { TokensPage } from './pages/tokens'
import { navigate, useLocation } from './router'
import { clearNotice, sessionOwner, signOut, useSession } from './session'
import { loginHref, Notice, Page } from './ui'

type Route = [RegExp, (match: RegExpExecArray) => JSX.Element | null]

/** A path segment decoded; null when it is no valid percent-encoding (`/p/%E0%A4%A`). */
function segment(raw: string): string | null {
  try {
    return decodeURIComponent(raw)
  } catch {
    return null
  }
}
/** The page for a segment of the path, or none (page not found) when the segment cannot be decoded. */
const withSegment = (raw: string, page: (id: string) => JSX.Element) => {
  const id = segment(raw)
  return id === null ? null : page(id)
}

const ROUTES: Route[] = [
  [/^\/$/, () => <HomePage />],
  [/^\/c\/([^/]+)\/?$/, (m) => withSegment(m[1]!, (id) => <CategoryPage id={id} />)],
  [/^\/p\/([^/]+)\/?$/, (m) => withSegment(m[1]!, (id) => <PromptPage id={id} />)],
  [/^\/search\/?$/, () => <SearchPage />],
  [/^\/login\/?$/, () => <LoginPage />],
  [/^\/register\/?$/, () => <RegisterPage />],
  [/^\/auth\/callback\/?$/, () => <CallbackPage />],
  [/^\/account\/?$/, () => <AccountPage />],
  [/^\/tokens\/?$/, () => <TokensPage />],
  [/^\/favorites\/?$/, () => <FavoritesPage />],
  [/^\/optimizer\/?$/, () => <OptimizerPage />],
  [/^\/skills\/?$/, () => <SkillsPage />],
  [/^\/skills\/([^/]+)\/?$/, (m) => withSegment(m[1]!, (id) => <SkillPage id={id} />)],
  [/^\/billing\/?$/, () => <BillingPage />],
]

function NotFound() {
  return (
    <Page title="Page not found">
      <p>
        There is no page at this address. <a href="/">Browse the library</a> or search for a prompt above.
      </p>
    </Page>
  )
}

function SearchBox() {
  const loc = useLocation()
  const onSearchPage = loc.path === '/search'
  const [value, setValue] = useState(onSearchPage ? (loc.query.get('q') ?? '') : '')
  // Back and forward on the search page bring their query with them.
  useEffect(() => {
    if (onSearchPage && loc.kind !== 'replace') setValue(loc.query.get('q') ?? '')
    if (!onSearchPage) setValue('')
  }, [loc.key])
  const go = (q: string) => {
    const onSearch = location.pathname === '/search'
    // On the search page its filters stay (category, order, tag) and new words start at the first page.
    const params = new URLSearchParams(onSearch ? location.search : '')
    params.delete('offset')
    if (q.trim()) params.set('q', q)
    else params.delete('q')
    const query = params.toString()
    // While typing on the search page the address follows without a history entry per keystroke.
    navigate(query ? `/search?${query}` : '/search', { replace: onSearch, keepFocus: true })
  }
  return (
    <form
      role="search"
      class="search-box"
      onSubmit={(e) => {
        e.preventDefault()
        go(value)
      }}
    >
      <label for="site-search" class="visually-hidden">
        Search prompts
      </label>
      <input
        id="site-search"
        type="search"
        name="q"
        placeholder="Search prompts…"
        autocomplete="off"
        value={value}
        onInput={(e) => {
          const q = e.currentTarget.value
          setValue(q)
          go(q)
        }}
      />
    </form>
  )
}

type Theme = 'light' | 'dark'

function storedTheme(): Theme | null {
  try {
    const value = localStorage.getItem('promptlib.theme')
    return value === 'light' || value === 'dark' ? value : null
  } catch {
    return null
  }
}

/** Follows the system's light or dark setting until the reader picks one here (kept in localStorage). */
function ThemeToggle() {
  const system = (): Theme => (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light')
  const [theme, setTheme] = useState<Theme>(storedTheme() ?? system())
  useEffect(() => {
    document.documentElement.dataset.theme = theme
  }, [theme])
  return (
    <button
      type="button"
      class="theme-toggle"
      aria-pressed={theme === 'dark'}
      onClick={() => {
        const next = theme === 'dark' ? 'light' : 'dark'
        try {
          localStorage.setItem('promptlib.theme', next)
        } catch {}
        setTheme(next)
      }}
    >
      Dark theme
    </button>
  )
}

function NavLink({ href, to = href, children }: { href: string; to?: string; children: ComponentChildren }) {
  const loc = useLocation()
  const current = loc.path === href || (href !== '/' && loc.path.startsWith(`${href}/`))
  return (
    <a href={to} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  )
}

function Header() {
  const session = useSession()
  // The sign-in links come back to the page they were followed from.
  useLocation()
  const signedIn = session.token !== null
  return (
    <header class="site-header">
      <div class="header-row">
        <a class="brand" href="/">
          promptlib
        </a>
        <SearchBox />
        <ThemeToggle />
      </div>
      <div class="header-row">
        <nav aria-label="Main">
          <ul>
            <li>
              <NavLink href="/">Browse</NavLink>
            </li>
            <li>
              <NavLink href="/optimizer">Optimizer</NavLink>
            </li>
            <li>
              <NavLink href="/skills">Skills</NavLink>
            </li>
            <li>
              <NavLink href="/billing">Plans</NavLink>
            </li>
          </ul>
        </nav>
        <nav aria-label="Account">
          <ul>
            {signedIn ? (
              <>
                <li>
                  <NavLink href="/favorites">Favorites</NavLink>
                </li>
                <li>
                  <NavLink href="/tokens">Tokens</NavLink>
                </li>
                <li>
                  <NavLink href="/account">Account</NavLink>
                </li>
                <li>
                  <button
                    type="button"
                    class="link-button"
                    onClick={() => {
                      signOut()
                      navigate('/')
                    }}
                  >
                    Log out
                  </button>
                </li>
              </>
            ) : (
              <>
                <li>
                  <NavLink href="/login" to={loginHref('login')}>
                    Log in
                  </NavLink>
                </li>
                <li>
                  <NavLink href="/register" to={loginHref('register')}>
                    Sign up
                  </NavLink>
                </li>
              </>
            )}
          </ul>
        </nav>
      </div>
    </header>
  )
}

/**
 * Why the session ended (a 401 on a later call), with the way back: log in, then return here. The
 * control that was used is often gone with the session (a form for signed-in users): the focus,
 * left on nothing, moves to the notice.
 */
function SessionNotice({ text }: { text: string }) {
  const box = useRef<HTMLDivElement>(null)
  useLayoutEffect(() => {
    const active = document.activeElement
    if (!active || active === document.body) box.current?.focus()
  }, [text])
  return (
    <div ref={box} tabIndex={-1} class="session-notice">
      <Notice kind="warning">
        {text} <a href={loginHref()}>Log in again</a>{' '}
        <button type="button" class="link-button" onClick={clearNotice}>
          Dismiss
        </button>
      </Notice>
    </div>
  )
}

export function App() {
  const loc = useLocation()
  const session = useSession()
  const main = useRef<HTMLElement>(null)
  let page: JSX.Element | null = null
  for (const [pattern, render] of ROUTES) {
    const match = pattern.exec(loc.path)
    if (match) {
      page = render(match)
      break
    }
  }
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <Header />
      <main id="main" tabIndex={-1} ref={main}>
        {session.notice && <SessionNotice text={session.notice} />}
        <Fragment key={sessionOwner(session.token)}>{page ?? <NotFound />}</Fragment>
      </main>
      <footer class="site-footer">
        <p>
          promptlib · <a href="/api/docs">API reference</a> · <a href="/billing">Plans</a>
        </p>
      </footer>
    </>
  )
}
