// Hostile values for the fuzzer: strings that have broken other services (SQL and FTS5 syntax,
// path traversal, format strings, template syntax, awkward Unicode, NUL and control characters,
// header injection) and the arbitraries that mix them with random text of every kind.
import fc from 'fast-check'

export const HOSTILE_STRINGS: readonly string[] = [
  // SQL
  "' OR '1'='1",
  "'; DROP TABLE users; --",
  '" OR 1=1 --',
  '1 UNION SELECT name, sql FROM sqlite_master --',
  "admin'--",
  '1; SELECT pg_sleep(5)',
  "\\'; --",
  // FTS5 query syntax (the search endpoints feed words to MATCH)
  '"unterminated',
  'NEAR(a b, -1)',
  'a OR',
  'AND',
  '* ^ -',
  'title:secret',
  '{a b}: c',
  '"" "" ""',
  'a* b* c* d* e* f*',
  '(((((((((((',
  // paths
  '../../../../etc/passwd',
  '..\\..\\..\\windows\\win.ini',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '/etc/shadow',
  'file:///etc/passwd',
  '....//....//',
  // format strings and templates
  '%s%s%s%s%n%x%d',
  '{0}{1}{__proto__}',
  '${7*7}',
  '{{7*7}}',
  '#{7*7}',
  '<%= 7*7 %>',
  // markup
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  // prototype pollution and JS oddities
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  // numbers as text
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '99999999999999999999999999',
  '-1',
  '0x10',
  '1.5',
  ' 1',
  // Unicode
  '\u202Eevil\u202C',
  'a\u200Bb\u200Cc\u200Dd\uFEFF',
  '\uD800',
  '\uDFFF\uD800',
  '🙂👩‍👩‍👧‍👦🏳️‍🌈',
  'e\u0301\u0301\u0301\u0301\u0301\u0301',
  'Ｓｅｌｅｃｔ',
  'İıſK',
  '\uFFFF\uFFFE',
  '\u0085\u2028\u2029',
  // NUL, control characters, line breaks (header injection)
  '\u0000',
  'a\u0000b',
  '\u0000\u0000\u0000\u0000',
  '\u0001\u0002\u0003\u001B[31m',
  'line\r\nX-Injected: 1',
  '\r\n\r\nHTTP/1.1 200 OK',
  // empty and blank
  '',
  ' ',
  '\t\n',
]

/** Text of every kind: hostile constants, any code points (lone surrogates included), ASCII. */
export const anyText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...HOSTILE_STRINGS), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }), weight: 1 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
  {
    arbitrary: fc.tuple(fc.constantFrom(...HOSTILE_STRINGS), fc.constantFrom(...HOSTILE_STRINGS)).map(([a, b]) => a + b),
    weight: 1,
  },
)

/** Long text: 1 KiB to a little over the 1 MiB body limit. */
export const hugeText: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('a', 'é', '🙂', '\u0000', "' OR 1=1 -- ", '%s', '../'), fc.constantFrom(1_000, 70_000, 600_000, 1_100_000))
  .map(([unit, chars]) => unit.repeat(Math.ceil(chars / unit.length)))

/** A JSON value of the wrong kind for wherever it goes. */
export const anyJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -(2 ** 63), 0.1),
  anyText,
  fc.array(fc.oneof(fc.integer(), anyText), { maxLength: 4 }),
  fc.dictionary(anyText, fc.oneof(fc.integer(), anyText), { maxKeys: 4 }),
)

/**
 * A value for a URL path segment or query: percent-encoded (made well-formed first: a lone
 * surrogate cannot be encoded), or raw, slashes and dot segments included (fetch resolves those).
 */
export function urlPiece(text: string, raw: boolean): string {
  const wellFormed = text.toWellFormed()
  return raw ? wellFormed.replaceAll('#', '%23').replaceAll('?', '%3F').replaceAll('&', '%26') : encodeURIComponent(wellFormed)
}
