// Skill instructions are Markdown written by whoever published the skill: rendered by marked, then
// sanitized by DOMPurify, which hands back DOM nodes that the page inserts as they are (no HTML
// string is parsed again afterwards). Nothing else in the app is rendered from HTML.
import DOMPurify from 'dompurify'
import { Marked } from 'marked'

const markdown = new Marked({ gfm: true, async: false })
const purifier = DOMPurify(window)

/** Whether a link leaves this origin, as the browser resolves it (`//host`, `/\host` and `HTTPS:` included). */
function isExternal(href: string): boolean {
  try {
    return new URL(href, location.href).origin !== location.origin
  } catch {
    return false
  }
}

export function renderMarkdown(text: string): DocumentFragment {
  const html = markdown.parse(text) as string
  const fragment = purifier.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed'],
    FORBID_ATTR: ['style', 'id', 'class'],
    RETURN_DOM_FRAGMENT: true,
  })
  // Links that leave the app open beside it and tell the other site nothing.
  for (const link of fragment.querySelectorAll('a[href]')) {
    if (!isExternal(link.getAttribute('href')!)) continue
    link.setAttribute('target', '_blank')
    link.setAttribute('rel', 'noopener noreferrer nofollow')
  }
  // The instructions sit under the page's "Instructions" heading (h2): their headings start at h3.
  for (const heading of fragment.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
    const level = Math.min(6, Number(heading.tagName[1]) + 2)
    const shifted = document.createElement(`h${level}`)
    shifted.append(...heading.childNodes)
    heading.replaceWith(shifted)
  }
  // The page loads nothing from another site (its CSP would refuse it anyway): a remote image
  // becomes its description, linked.
  for (const image of fragment.querySelectorAll('img')) {
    const src = image.getAttribute('src') ?? ''
    if (src.startsWith('data:')) continue
    const link = document.createElement('a')
    link.textContent = `[image: ${image.getAttribute('alt') || src}]`
    if (/^https?:/i.test(src)) {
      link.setAttribute('href', src)
      link.setAttribute('target', '_blank')
      link.setAttribute('rel', 'noopener noreferrer nofollow')
    }
    image.replaceWith(link)
  }
  return fragment
}
