/**
 * What the XML layer (xml.ts) checks in the text before fast-xml-parser sees it, and around the root after: size,
 * UTF-8 only, no control characters, the XML declaration, no DOCTYPE or other markup declaration (no XXE, no billion
 * laughs), no processing instructions, comments and CDATA closed, only whitespace and comments outside the root.
 */
import { DecodeError } from '../util/errors.js'

const XML_DECL = 'XML 1.0 §2.8'
export const WELL_FORMED = 'XML 1.0 §2.1'
// XML 1.0 §2.2: characters outside Char (C0 controls other than TAB, LF, CR; U+FFFE, U+FFFF).
const BAD_CHAR = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/
const DECLARATION =
  /^<\?xml[ \t\n]+version[ \t\n]*=[ \t\n]*(["'])1\.[0-9]+\1(?:[ \t\n]+encoding[ \t\n]*=[ \t\n]*(["'])([A-Za-z][-A-Za-z0-9._]*)\2)?(?:[ \t\n]+standalone[ \t\n]*=[ \t\n]*(["'])(?:yes|no)\4)?[ \t\n]*\?>/

export function toText(input: string | Uint8Array, maxBytes: number): string {
  let text: string
  if (typeof input === 'string') {
    if (input.length > maxBytes / 3 && Buffer.byteLength(input, 'utf8') > maxBytes) tooLarge(maxBytes)
    text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input
  } else {
    if (input.length > maxBytes) tooLarge(maxBytes)
    if ((input[0] === 0xfe && input[1] === 0xff) || (input[0] === 0xff && input[1] === 0xfe)) {
      throw new DecodeError('XML 1.0 §4.3.3', 'the document is UTF-16; only UTF-8 is accepted')
    }
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(input)
    } catch {
      throw new DecodeError('XML 1.0 §4.3.3', 'the document is not valid UTF-8')
    }
  }
  if (BAD_CHAR.test(text)) throw new DecodeError('XML 1.0 §2.2', 'the document contains a control character not allowed in XML')
  // XML 1.0 §2.11: CRLF and lone CR become LF before parsing.
  return text.indexOf('\r') === -1 ? text : text.replace(/\r\n?/g, '\n')
}

function tooLarge(maxBytes: number): never {
  throw new DecodeError('', `the XML document is larger than the limit of ${maxBytes} bytes`)
}

/** The XML declaration, only at the very start: where it ends and the encoding it names. */
export function declaration(s: string): { end: number; encoding: string | undefined } {
  if (!s.startsWith('<?xml') || !/[ \t\n?]/.test(s.charAt(5))) return { end: 0, encoding: undefined }
  const m = DECLARATION.exec(s)
  if (!m) throw new DecodeError(XML_DECL, 'the XML declaration is malformed')
  return { end: m[0].length, encoding: m[3] }
}

export function checkEncoding(encoding: string | undefined): void {
  if (encoding !== undefined && encoding.toLowerCase() !== 'utf-8') {
    throw new DecodeError('XML 1.0 §4.3.3', `the document declares encoding "${encoding}"; only UTF-8 is accepted`)
  }
}

/**
 * Before the library sees the text: every `<!` must open a comment or a CDATA section (a DOCTYPE or any other
 * declaration is refused, which rules out DTDs, entity declarations and external entities), every `<?` after the
 * declaration is a processing instruction and refused; comments and CDATA sections must be closed. Returns how
 * many `<` open tags, for documentElement (xml.ts) to compare with the tags it re-reads.
 */
export function scanMarkup(s: string, from: number): number {
  let tags = 0
  for (let at = s.indexOf('<', from); at !== -1; at = s.indexOf('<', at)) {
    const next = s.charCodeAt(at + 1)
    if (next === 0x3f /* ? */) processingInstruction()
    if (next !== 0x21 /* ! */) {
      tags++
      at++
    } else if (s.startsWith('<!--', at)) at = closing(s, at + 4, '-->', 'XML 1.0 §2.5', 'a comment is not closed')
    else if (s.startsWith('<![CDATA[', at)) at = closing(s, at + 9, ']]>', 'XML 1.0 §2.7', 'a CDATA section is not closed')
    else if (s.startsWith('<!DOCTYPE', at)) doctype()
    else throw new DecodeError(XML_DECL, 'markup declarations are not allowed')
  }
  return tags
}

function closing(s: string, from: number, end: string, rule: string, message: string): number {
  const at = s.indexOf(end, from)
  if (at === -1) throw new DecodeError(rule, message)
  return at + end.length
}

export function processingInstruction(): never {
  throw new DecodeError('XML 1.0 §2.6', 'processing instructions are not allowed (only the XML declaration, at the very start)')
}

function doctype(): never {
  throw new DecodeError(XML_DECL, 'a DOCTYPE declaration is not allowed (no DTDs, entity declarations or external entities)')
}

/** Whitespace and comments only: the library drops text outside the root and reads a second root as another node. */
export function misc(s: string, from: number, to: number, where: 'before' | 'after'): void {
  for (let i = from; i < to; ) {
    const c = s.charCodeAt(i)
    if (c === 0x20 || c === 0x0a || c === 0x09) i++
    else if (s.startsWith('<!--', i)) i = closing(s, i + 4, '-->', 'XML 1.0 §2.5', 'a comment is not closed')
    else if (where === 'after' && c === 0x3c && /[A-Za-z_:\u00C0-\uFFFF]/.test(s.charAt(i + 1))) {
      throw new DecodeError(WELL_FORMED, 'the document has more than one root element')
    } else throw new DecodeError(WELL_FORMED, `text is not allowed ${where} the root element`)
  }
}
