// Where a JSON text stops being JSON, for the import report: JSON.parse's messages carry no
// position in Bun ("JSON Parse error: Unexpected token '}'"). Only called after JSON.parse failed.

export interface JsonSyntaxError {
  /** offset in the text */
  index: number
  message: string
}

class Stop {
  constructor(
    readonly index: number,
    readonly message: string,
  ) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const hex4 = (code: number) => code.toString(16).toUpperCase().padStart(4, '0')

/** The first syntax error of a JSON text (RFC 8259), or null when there is none. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | null {
  const n = text.length
  let i = 0
  const found = (at = i) => {
    if (at >= n) return 'the end of the file'
    const code = text.codePointAt(at)!
    return code < 0x20 || (code >= 0x7f && code <= 0x9f) || (code >= 0xd800 && code <= 0xdfff)
      ? `U+${hex4(code)}`
      : JSON.stringify(String.fromCodePoint(code))
  }
  const fail = (message: string, at = i): never => {
    throw new Stop(at, message)
  }
  const space = () => {
    for (let c = text[i]; c === ' ' || c === '\t' || c === '\n' || c === '\r'; c = text[++i]);
  }

  function string(): void {
    const start = i++
    for (;;) {
      if (i >= n) fail('a string is never closed (missing ")', start)
      const code = text.charCodeAt(i)
      if (code === 0x22) return void i++
      if (code < 0x20) fail(`a control character (U+${hex4(code)}) inside a string must be escaped`)
      if (code === 0x5c) {
        const next = text[i + 1]
        if (next !== undefined && '"\\/bfnrt'.includes(next)) i += 2
        else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6
        else fail(`invalid escape inside a string: a backslash followed by ${found(i + 1)}`)
        continue
      }
      i++
    }
  }

  function container(close: '}' | ']'): void {
    i++
    space()
    if (text[i] === close) return void i++
    for (;;) {
      space()
      if (close === '}') {
        if (text[i] !== '"') fail(`expected a string (a field name), found ${found()}`)
        string()
        space()
        if (text[i] !== ':') fail(`expected ":" after the field name, found ${found()}`)
        i++
      }
      value()
      space()
      if (text[i] === ',') {
        i++
        continue
      }
      if (text[i] === close) return void i++
      fail(`expected "," or "${close}", found ${found()}`)
    }
  }

  function value(): void {
    space()
    const c = text[i]
    if (c === '{') return container('}')
    if (c === '[') return container(']')
    if (c === '"') return string()
    for (const word of ['true', 'false', 'null']) if (text.startsWith(word, i)) return void (i += word.length)
    NUMBER.lastIndex = i
    if ((c === '-' || (c !== undefined && c >= '0' && c <= '9')) && NUMBER.test(text)) return void (i = NUMBER.lastIndex)
    fail(`expected a value, found ${found()}`)
  }

  try {
    value()
    space()
    if (i < n) fail(`unexpected ${found()} after the end of the JSON value`)
    return null
  } catch (error) {
    if (error instanceof Stop) return { index: error.index, message: error.message }
    if (error instanceof RangeError) return null // nested deeper than the stack allows
    throw error
  }
}
