// The app's entry: routing, the signed-in user's profile, and the first render.
import { render } from 'preact'
import { App } from './app'
import { startRouter } from './router'
import { currentSession, refreshMe } from './session'

startRouter()
if (currentSession().token) void refreshMe().catch(() => {})
render(<App />, document.getElementById('app')!)
