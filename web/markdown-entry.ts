// The Markdown renderer as a script of its own (see markdown.html): it hands the app its function.
import { renderMarkdown } from './markdown'

window.promptlibMarkdown = renderMarkdown
