// Cuts the finished rewrite into stream-sized pieces: at word boundaries where possible and
// never between the two halves of a UTF-16 surrogate pair (emoji, rare CJK).

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

function isWhitespace(char: string | undefined): boolean {
  return char === ' ' || char === '\n' || char === '\t'
}

/** End offset of the chunk that starts at `start`. */
export function chunkEnd(text: string, start: number, size: number): number {
  const limit = start + size
  if (limit >= text.length) return text.length
  // Prefer cutting just after a space in the second half of the window, so words stay whole.
  for (let end = limit; end > start + size / 2; end--) {
    if (isWhitespace(text[end - 1])) return end
  }
  if (!isHighSurrogate(text.charCodeAt(limit - 1))) return limit
  // The window ends inside a surrogate pair: step back, or forward when the pair is the whole window.
  return limit - 1 > start ? limit - 1 : limit + 1
}
