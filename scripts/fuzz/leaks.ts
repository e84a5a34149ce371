// What a response must never show: a stack trace, SQL or a database error, a file path of the
// server's machine. A match that the request itself contains is an echo of the client's own
// input (a PAT's name, a search word), not a leak, and is not counted.
import { homedir, tmpdir } from 'node:os'

interface Detector {
  name: string
  pattern: RegExp
  /** also in successful answers (else only in 4xx/5xx, where catalogue text cannot be) */
  always: boolean
}

function literal(text: string): RegExp {
  return new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
}

/** The detectors for a server whose code lives in `root` and data in `dataDir`. */
export function leakDetectors(root: string, dataDir: string): Detector[] {
  const paths = [root, dataDir, tmpdir(), homedir(), '/work/']
    .filter((p) => p.length > 4)
    .map((p) => ({ name: `file path ${p}`, pattern: literal(p), always: true }))
  return [
    // V8/JSC stack frames: "    at fn (/path/file.ts:12:5)", "at <anonymous> (native)", "@/path/x.js:1:2"
    { name: 'stack frame', pattern: /\n\s+at \S.*(?:\(|\s)(?:\/|file:|node:|bun:|native|<anonymous>)[^\n]*/, always: true },
    { name: 'stack frame', pattern: /\bat (?:async )?[\w$.<>[\]]+ \((?:\/|file:|node:|bun:)[^)]*:\d+(?::\d+)?\)/, always: true },
    { name: 'source location', pattern: /[\w-]+\.(?:ts|tsx|js|mjs|cjs):\d+(?::\d+)?/, always: false },
    { name: 'source path', pattern: /\/src\/(?:http|features|db|cli|lib|web)\//, always: true },
    { name: 'node_modules', pattern: /node_modules\//, always: true },
    { name: 'bunfs path', pattern: /\$bunfs|\/~BUN\//, always: true },
    ...paths,
    { name: 'SQLite error code', pattern: /\bSQLITE_[A-Z_]+\b/, always: true },
    {
      name: 'SQLite error',
      pattern: /\bSQLiteError\b|no such (?:table|column)|constraint failed|database is locked|fts5: syntax error/i,
      always: true,
    },
    {
      name: 'PostgreSQL error',
      pattern: /\bPostgresError\b|violates (?:unique|foreign key|not-null) constraint|relation "[^"]+" does not exist/,
      always: true,
    },
    { name: 'SQL syntax error', pattern: /syntax error/i, always: false },
    // Within one JSON string (escaped quotes allowed): a SELECT in one echoed field and a FROM in
    // another are two echoes, not one statement.
    { name: 'SQL text', pattern: /\b(?:SELECT\b(?:[^"\\]|\\.){1,200}?\bFROM|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b/, always: false },
    { name: 'JS error name', pattern: /\b(?:TypeError|ReferenceError|RangeError|SyntaxError|EvalError|URIError|AggregateError)\b/, always: false },
    { name: 'JS internals', pattern: /\bundefined is not an object\b|\bis not a function\b|Cannot read propert|\[object Object\]/, always: false },
  ]
}

export interface Leak {
  detector: string
  excerpt: string
}

/** The first leak in `text`: a match the request did not carry itself (every match is looked at, not only the first). */
export function findLeak(detectors: Detector[], text: string, requestText: string, isError: boolean): Leak | null {
  for (const d of detectors) {
    if (!d.always && !isError) continue
    for (const match of text.matchAll(new RegExp(d.pattern.source, `${d.pattern.flags}g`))) {
      if (requestText.includes(match[0]) || requestText.includes(match[0].trim())) continue
      const start = Math.max(0, match.index - 80)
      return { detector: d.name, excerpt: text.slice(start, match.index + match[0].length + 80) }
    }
  }
  return null
}
