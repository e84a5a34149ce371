// An RFC 4180 CSV parser, fed piece by piece: quoted fields with commas, doubled quotes and line
// breaks inside; CRLF or LF line ends; a leading byte-order mark. Each record carries the line it
// starts on. Lenient where real files are sloppy (a quote inside an unquoted field is kept as
// text), strict where the meaning would be lost: text after a closing quote refuses its record;
// a quote that never closes refuses the file (past it, where records begin cannot be known).

export interface CsvRecord {
  line: number
  fields: string[]
  /** the line each field starts on (a quoted field may span lines) */
  fieldLines: number[]
}

export interface CsvError {
  line: number
  message: string
  /** the file cannot be read past this point */
  fatal?: boolean
}

/**
 * The longest record read: a prompt's content is at most 5,000,000 characters; a record that runs
 * on past this has a quote that never closes.
 */
export const MAX_RECORD_CHARS = 16_000_000

/**
 * Line feeds in text[from, to). Looks no further than `to`: indexOf would search on to the next
 * line feed wherever it is, once per doubled quote of a field (a 5 MB one-line field full of "" took
 * over a minute).
 */
const countLines = (text: string, from: number, to: number) => {
  let n = 0
  for (let k = from; k < to; k++) if (text.charCodeAt(k) === 10) n++
  return n
}

export class CsvParser {
  private text = ''
  private line = 1
  private first = true
  private done = false

  /** Feeds the next piece of text (`last`: nothing follows); returns the records now complete and the errors met, in file order. */
  push(piece: string, last = false): (CsvRecord | CsvError)[] {
    const out: (CsvRecord | CsvError)[] = []
    if (this.done) return out
    this.text = this.text.length === 0 ? piece : this.text + piece
    if (this.first && this.text.length > 0) {
      if (this.text.charCodeAt(0) === 0xfeff) this.text = this.text.slice(1)
      this.first = false
    }
    let i = 0
    while (i < this.text.length) {
      const result = this.record(i, last)
      if (result === null) {
        // Incomplete: wait for more text, unless no closing quote can come in reasonable time.
        if (this.text.length - i > MAX_RECORD_CHARS) {
          out.push({
            line: this.line,
            message: 'a quoted field is never closed (missing "): the record runs on past 16 million characters',
            fatal: true,
          })
          this.done = true
        }
        break
      }
      if ('fatal' in result) {
        out.push(result)
        this.done = true
        break
      }
      out.push('error' in result ? result.error : result.record)
      i = result.next
    }
    this.text = this.done ? '' : this.text.slice(i)
    return out
  }

  /** The record starting at `i`: null when the text ends first (and more may come). */
  private record(i: number, last: boolean): ({ next: number } & ({ record: CsvRecord } | { error: CsvError })) | (CsvError & { fatal: true }) | null {
    const text = this.text
    const n = text.length
    let line = this.line
    const start = line
    const fields: string[] = []
    const fieldLines: number[] = []
    let broken: CsvError | null = null
    for (;;) {
      fieldLines.push(line)
      let field = ''
      if (text[i] === '"') {
        const quoteLine = line
        let k = i + 1
        let closed = false
        while (k < n) {
          const q = text.indexOf('"', k)
          if (q === -1) break
          if (q + 1 >= n && !last) return null // a doubled quote may follow
          field += text.slice(k, q)
          line += countLines(text, k, q)
          if (text[q + 1] === '"') {
            field += '"'
            k = q + 2
            continue
          }
          k = q + 1
          closed = true
          break
        }
        if (!closed) {
          if (!last) return null
          return { line: quoteLine, message: 'a quoted field is never closed (missing ")', fatal: true }
        }
        i = k
        if (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          let j = i
          while (j < n && text[j] !== ',' && text[j] !== '\n') j++
          if (j >= n && !last) return null
          broken = { line, message: `unexpected text after a closing quote: ${JSON.stringify(text.slice(i, Math.min(j, i + 10)))}` }
          i = j
        }
      } else {
        let j = i
        while (j < n && text[j] !== ',' && text[j] !== '\n' && text[j] !== '\r') j++
        if (j >= n && !last) return null
        field = text.slice(i, j)
        i = j
      }
      fields.push(field)
      if (i >= n) break
      if (text[i] === ',') {
        i++
        if (i >= n) {
          if (!last) return null
          fields.push('')
          fieldLines.push(line)
          break
        }
        continue
      }
      // end of record: \r\n, \n or a lone \r
      if (text[i] === '\r') {
        if (i + 1 >= n && !last) return null
        i++
      }
      if (text[i] === '\n') i++
      line++
      break
    }
    this.line = line
    return broken ? { next: i, error: broken } : { next: i, record: { line: start, fields, fieldLines } }
  }
}

export const isCsvError = (item: CsvRecord | CsvError): item is CsvError => 'message' in item

/** A whole text at once (tests). */
export function parseCsv(text: string): { records: CsvRecord[]; errors: CsvError[] } {
  const items = new CsvParser().push(text, true)
  return {
    records: items.filter((item): item is CsvRecord => !isCsvError(item)),
    errors: items.filter(isCsvError).map(({ line, message }) => ({ line, message })),
  }
}
