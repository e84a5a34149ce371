// The Markdown renderer's script (markdown-entry.ts) hands its function to the app through the window.
interface Window {
  promptlibMarkdown?: (text: string) => DocumentFragment
}
