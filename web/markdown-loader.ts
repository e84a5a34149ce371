// Loads the Markdown renderer (marked + DOMPurify, about half the app's script) the first time a
// page needs it, from the script the server names in the page's <meta name="promptlib-markdown">.
type Render = (text: string) => DocumentFragment

let loading: Promise<Render> | null = null

export function loadMarkdown(): Promise<Render> {
  loading ??= new Promise<Render>((resolve, reject) => {
    if (window.promptlibMarkdown) return resolve(window.promptlibMarkdown)
    const src = document.querySelector('meta[name="promptlib-markdown"]')?.getAttribute('content')
    if (!src) return reject(new Error('The page names no Markdown renderer.'))
    const script = document.createElement('script')
    script.type = 'module'
    script.src = src
    // A module script's load event comes after it has run, so the function is there by then.
    script.onload = () => (window.promptlibMarkdown ? resolve(window.promptlibMarkdown) : reject(new Error('The Markdown renderer did not start.')))
    script.onerror = () => reject(new Error('The Markdown renderer could not be loaded.'))
    document.head.append(script)
  }).catch((error) => {
    loading = null
    throw error
  })
  return loading
}
