// The app's entry: routing, the signed-in user's profile, and the first render.
import { render } from 'preact'
import { App } from './app'
import { categories } from './pages/browse'
import { startRouter } from './router'
import { currentSession, refreshMe } from './session'

performance.mark('promptlib:start')
// The first page's data is asked for before the first render, not after it (an effect would wait a frame).
if (location.pathname === '/') void categories().catch(() => {})
if (currentSession().token) void refreshMe().catch(() => {})
startRouter()
render(<App />, document.getElementById('app')!)
