// Search snippets come HTML-escaped with the matching words inside <mark>…</mark> (docs/api.md).
// Rather than trusting that to innerHTML, they are read back into text pieces here and rendered as
// text nodes and <mark> elements: no catalogue text ever reaches innerHTML. Pure (no DOM).

export interface SnippetPiece {
  text: string
  marked: boolean
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

/** `&amp;`, `&lt;`, `&#39;`, `&#x27;` … back to their characters; anything else is left as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10)
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole
    }
    return ENTITIES[name.toLowerCase()] ?? whole
  })
}

export function parseSnippet(snippet: string): SnippetPiece[] {
  const pieces: SnippetPiece[] = []
  let marked = false
  for (const part of snippet.split(/(<mark>|<\/mark>)/)) {
    if (part === '<mark>') marked = true
    else if (part === '</mark>') marked = false
    else if (part !== '') {
      // Any other tag is not part of the format: it shows as the text it is.
      pieces.push({ text: decodeEntities(part), marked })
    }
  }
  return pieces
}
