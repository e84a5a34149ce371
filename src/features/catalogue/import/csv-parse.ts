// An RFC 4180 CSV parser: quoted fields with commas, doubled quotes and line breaks inside;
// CRLF or LF line ends; a leading byte-order mark. Each record carries the line it starts on.
// Lenient where real files are sloppy (a quote inside an unquoted field is kept as text), strict
// where the meaning would be lost (an unterminated quote, text after a closing quote).

export interface CsvRecord {
  line: number
  fields: string[]
  /** the line each field starts on (a quoted field may span lines) */
  fieldLines: number[]
}

export interface CsvError {
  line: number
  message: string
}

export function parseCsv(input: string): { records: CsvRecord[]; errors: CsvError[] } {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input
  const records: CsvRecord[] = []
  const errors: CsvError[] = []
  let line = 1
  let i = 0
  const n = text.length
  while (i < n) {
    const start = line
    const fields: string[] = []
    const fieldLines: number[] = []
    let broken = false
    for (;;) {
      fieldLines.push(line)
      let field = ''
      if (text[i] === '"') {
        const quoteLine = line
        i++
        let closed = false
        while (i < n) {
          const q = text.indexOf('"', i)
          if (q === -1) break
          field += text.slice(i, q)
          for (let k = i; k < q; k++) if (text.charCodeAt(k) === 10) line++
          if (text[q + 1] === '"') {
            field += '"'
            i = q + 2
            continue
          }
          i = q + 1
          closed = true
          break
        }
        if (!closed) {
          errors.push({ line: quoteLine, message: 'a quoted field is never closed (missing ")' })
          return { records, errors }
        }
        if (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          errors.push({ line, message: `unexpected text after a closing quote: ${JSON.stringify(text.slice(i, i + 10))}` })
          broken = true
          while (i < n && text[i] !== ',' && text[i] !== '\n') i++
        }
      } else {
        let j = i
        while (j < n && text[j] !== ',' && text[j] !== '\n' && text[j] !== '\r') j++
        field = text.slice(i, j)
        i = j
      }
      fields.push(field)
      if (i >= n) break
      if (text[i] === ',') {
        i++
        if (i >= n) {
          fields.push('')
          fieldLines.push(line)
          break
        }
        continue
      }
      // end of record: \r\n, \n or a lone \r
      if (text[i] === '\r') i++
      if (text[i] === '\n') i++
      line++
      break
    }
    if (!broken) records.push({ line: start, fields, fieldLines })
  }
  return { records, errors }
}
