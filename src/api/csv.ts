/**
 * RFC 4180 CSV, as the ROA and ASPA export and import use it (api/roa-io.ts): records read with the line each starts
 * on (a quoted field may hold commas, quotes and line breaks), problems reported by line and not thrown, fields
 * written quoted when they must be, and the spreadsheet formula guard. Also the lines on which the entries of a JSON
 * array start, so that a JSON import names lines too. Pure.
 */
import { runSync, sliceCounter, type Sliced } from '../util/slices.js'

/** One record: its fields and the (1-based) line it starts on. */
export interface CsvRecord {
  line: number
  fields: string[]
}

/** What is wrong, and where. */
export interface LineProblem {
  line: number
  reason: string
}

/**
 * The records of a CSV text. A leading byte order mark is skipped; lines end in CRLF (RFC 4180 §2 rule 1) or LF alone;
 * blank lines are skipped; unquoted fields are trimmed. A record with a problem is left out and its problem listed.
 */
export function readCsv(text: string): { records: CsvRecord[]; problems: LineProblem[] } {
  return runSync(readCsvSteps(text))
}

/** readCsv in slices: it yields every SLICE records (a file of 100,000 ROAs is read without holding the event loop). */
export function* readCsvSteps(text: string): Sliced<{ records: CsvRecord[]; problems: LineProblem[] }> {
  const due = sliceCounter()
  const records: CsvRecord[] = []
  const problems: LineProblem[] = []
  const n = text.length
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  let line = 1
  const endOfLine = () => {
    // The rest of a bad record's physical line is skipped.
    while (i < n && text[i] !== '\n') i++
    if (i < n) i++, line++
  }
  while (i < n) {
    const start = line
    const fields: string[] = []
    let problem: string | undefined
    for (;;) {
      if (text[i] === '"') {
        // RFC 4180 §2 rules 5-7: a quoted field; "" is one quote; commas and line breaks are data.
        const opened = line
        let value = ''
        i++
        for (;;) {
          if (i >= n) {
            problem = `the quote opened on line ${opened} is never closed`
            break
          }
          const c = text[i]!
          if (c === '"') {
            if (text[i + 1] === '"') (value += '"'), (i += 2)
            else {
              i++
              break
            }
          } else {
            if (c === '\n') line++
            value += c
            i++
          }
        }
        if (problem) break
        fields.push(value)
        if (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
          problem = 'text after the closing quote of a field (RFC 4180: a quoted field ends at its quote)'
          break
        }
      } else {
        let j = i
        while (j < n && text[j] !== ',' && text[j] !== '\n' && !(text[j] === '\r' && text[j + 1] === '\n')) j++
        const raw = text.slice(i, j)
        i = j
        if (raw.includes('"')) {
          problem = 'a quote inside an unquoted field (RFC 4180: quote the whole field and double the quote)'
          break
        }
        fields.push(raw.trim())
      }
      if (i < n && text[i] === ',') {
        i++
        continue
      }
      break
    }
    if (problem) {
      problems.push({ line: start, reason: problem })
      if (i < n) endOfLine()
      continue
    }
    if (text[i] === '\r') i++
    if (i < n) i++, line++
    if (fields.length === 1 && fields[0] === '') continue // a blank line
    records.push({ line: start, fields })
    if (due()) yield
  }
  return { records, problems }
}

/** One field as RFC 4180 §2 rules 5-7 write it: quoted (quotes doubled) when it holds a comma, quote, line break or edge space. */
export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value
}

/** A record with its CRLF (RFC 4180 §2 rule 1). */
export function csvLine(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`
}

/**
 * The spreadsheet formula guard (OWASP "CSV injection"): text that starts with =, +, -, @, a tab or a carriage
 * return is read as a formula by spreadsheets, so it is written after a single quote ('), which spreadsheets show as
 * text. Text that starts with a quote gets one too, so that reading (formulaText) gives back exactly what was written.
 */
export function formulaSafe(text: string): string {
  return /^[=+\-@\t\r']/.test(text) ? `'${text}` : text
}

/** formulaSafe undone: one leading single quote is dropped. */
export function formulaText(field: string): string {
  return field.startsWith("'") ? field.slice(1) : field
}

//------------ JSON ------------------------------------------------------------------------------------------------

/**
 * The line on which each entry of a top-level JSON array starts, or the line of the first syntax problem (RFC 8259).
 * It only scans: JSON.parse makes the values.
 */
export function jsonArrayLines(text: string): { lines: number[] } | { problem: LineProblem } {
  const s = new JsonScan(text)
  try {
    s.space()
    if (s.peek() !== '[') return { problem: { line: s.line, reason: 'expected a JSON array: [ … ]' } }
    const lines: number[] = []
    s.i++
    s.space()
    if (s.peek() === ']') s.i++
    else {
      for (;;) {
        s.space()
        lines.push(s.line)
        s.value()
        s.space()
        const c = s.next()
        if (c === ']') break
        if (c !== ',') s.fail("expected ',' or ']' after an entry")
      }
    }
    s.space()
    if (s.i < text.length) s.fail('text after the end of the array')
    return { lines }
  } catch (e) {
    if (e instanceof JsonProblem) return { problem: { line: e.line, reason: `invalid JSON: ${e.message}` } }
    throw e
  }
}

class JsonProblem extends Error {
  constructor(readonly line: number, message: string) {
    super(message)
  }
}

class JsonScan {
  i: number
  line = 1
  constructor(private readonly t: string) {
    this.i = t.charCodeAt(0) === 0xfeff ? 1 : 0
  }

  fail(reason: string): never {
    throw new JsonProblem(this.line, reason)
  }

  peek(): string | undefined {
    return this.t[this.i]
  }

  next(): string | undefined {
    return this.t[this.i++]
  }

  space(): void {
    for (let c = this.t[this.i]; c === ' ' || c === '\t' || c === '\n' || c === '\r'; c = this.t[++this.i]) if (c === '\n') this.line++
  }

  value(): void {
    const c = this.peek()
    if (c === '{') return this.container('}', true)
    if (c === '[') return this.container(']', false)
    if (c === '"') return this.string()
    const m = /^(?:-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null)/.exec(this.t.slice(this.i, this.i + 400))
    if (!m) this.fail(c === undefined ? 'the text ends inside a value' : `unexpected ${JSON.stringify(c)}`)
    this.i += m[0].length
  }

  private container(close: string, keyed: boolean): void {
    this.i++
    this.space()
    if (this.peek() === close) return void this.i++
    for (;;) {
      this.space()
      if (keyed) {
        if (this.peek() !== '"') this.fail('expected a quoted member name')
        this.string()
        this.space()
        if (this.next() !== ':') this.fail("expected ':' after a member name")
        this.space()
      }
      this.value()
      this.space()
      const c = this.next()
      if (c === close) return
      if (c !== ',') this.fail(`expected ',' or '${close}'`)
    }
  }

  private string(): void {
    this.i++
    for (;;) {
      const c = this.next()
      if (c === undefined) this.fail('a string is never closed')
      if (c === '"') return
      if (c === '\n' || c < ' ') this.fail('a control character inside a string (write it as \\n, \\t, …)')
      if (c === '\\') {
        const e = this.next()
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.t.slice(this.i, this.i + 4))) this.fail('a \\u escape needs four hex digits')
          this.i += 4
        } else if (e === undefined || !'"\\/bfnrt'.includes(e)) this.fail('an unknown escape in a string')
      }
    }
  }
}
