/**
 * The XML layer under the RFC 6492, 8181, 8182 and 8183 codecs: a safe, namespace-resolving parser (no DTD, no
 * entities beyond the five predefined ones, no processing instructions, UTF-8 only, size-limited) and a canonical
 * builder. A hand scanner (about 3 ms per MiB): fast-xml-parser cannot resolve namespaces by declaration, so neither
 * it nor xmlbuilder2 is imported; this file stays their only allowed home (design.md §2).
 */
import { DecodeError } from '../util/errors.js'

/** A parsed element: local name, resolved namespace URI, unprefixed attributes (plus `xml:*`), children, text. */
export interface XmlElement {
  name: string
  ns: string
  attrs: Record<string, string>
  children: XmlElement[]
  /** The element's own text content (not its descendants'), entity-decoded, whitespace kept. */
  text: string
}

export interface ParseXmlOptions {
  /** Largest accepted input in bytes (UTF-8); default {@link DEFAULT_MAX_XML_BYTES}. */
  maxBytes?: number
}

/** 64 MiB: above the largest RFC 8181 message we accept (32 MiB) with room; RRDP decoders may pass more. */
export const DEFAULT_MAX_XML_BYTES = 64 * 1024 * 1024
export const XML_NS = 'http://www.w3.org/XML/1998/namespace'
const MAX_DEPTH = 64
const XML_DECL = 'XML 1.0 §2.8'
const WELL_FORMED = 'XML 1.0 §2.1'
const NAMESPACES = 'Namespaces in XML 1.0 §5'

// XML 1.0 §2.2: characters outside Char (C0 controls other than TAB, LF, CR; U+FFFE, U+FFFF).
const BAD_CHAR = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/
const QNAME_SRC = '[A-Za-z_\\u00C0-\\uFFFF][-A-Za-z0-9._\\u00B7-\\uFFFF]*(?::[A-Za-z_\\u00C0-\\uFFFF][-A-Za-z0-9._\\u00B7-\\uFFFF]*)?'
const QNAME = new RegExp(QNAME_SRC, 'y')
const ATTRIBUTE = new RegExp(`[ \\t\\n]+(${QNAME_SRC})[ \\t\\n]*=[ \\t\\n]*(?:"([^"<]*)"|'([^'<]*)')`, 'y')
const TAG_END = /[ \t\n]*(\/?)>/y
const END_TAG = new RegExp(`</(${QNAME_SRC})[ \\t\\n]*>`, 'y')
const DECLARATION =
  /^<\?xml[ \t\n]+version[ \t\n]*=[ \t\n]*(["'])1\.[0-9]+\1(?:[ \t\n]+encoding[ \t\n]*=[ \t\n]*(["'])([A-Za-z][-A-Za-z0-9._]*)\2)?(?:[ \t\n]+standalone[ \t\n]*=[ \t\n]*(["'])(?:yes|no)\4)?[ \t\n]*\?>/
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }

/** Parse one XML document (string or UTF-8 bytes) into its root element, refusing anything unsafe or malformed. */
export function parseXml(input: string | Uint8Array, opts: ParseXmlOptions = {}): XmlElement {
  return new Scanner(toText(input, opts.maxBytes ?? DEFAULT_MAX_XML_BYTES)).document()
}

function toText(input: string | Uint8Array, maxBytes: number): string {
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

type Scope = Record<string, string>

interface Frame {
  qname: string
  el: XmlElement
  parts: string[]
  scope: Scope
}

const ROOT_SCOPE: Scope = Object.assign(Object.create(null) as Scope, { xml: XML_NS })

class Scanner {
  private i = 0
  private encoding: string | undefined

  constructor(private readonly s: string) {}

  document(): XmlElement {
    this.declaration()
    this.misc(false)
    if (this.i >= this.s.length) throw new DecodeError(WELL_FORMED, 'the document has no root element')
    this.checkEncoding()
    const root = this.element()
    this.misc(true)
    if (this.i < this.s.length) throw new DecodeError(WELL_FORMED, 'the document has more than one root element')
    return root
  }

  private declaration(): void {
    const s = this.s
    if (!s.startsWith('<?xml') || !/[ \t\n?]/.test(s.charAt(5))) return
    const m = DECLARATION.exec(s)
    if (!m) throw new DecodeError(XML_DECL, 'the XML declaration is malformed')
    this.encoding = m[3]
    this.i = m[0].length
  }

  private checkEncoding(): void {
    if (this.encoding !== undefined && this.encoding.toLowerCase() !== 'utf-8') {
      throw new DecodeError('XML 1.0 §4.3.3', `the document declares encoding "${this.encoding}"; only UTF-8 is accepted`)
    }
  }

  /** Comments and whitespace before or after the root; anything else there is refused with its reason. */
  private misc(afterRoot: boolean): void {
    const s = this.s
    for (;;) {
      while (this.i < s.length && isSpace(s.charCodeAt(this.i))) this.i++
      if (this.i >= s.length) return
      if (s.startsWith('<!--', this.i)) this.comment()
      else if (s.startsWith('<?', this.i)) processingInstruction()
      else if (s.startsWith('<!DOCTYPE', this.i)) doctype()
      else if (s.startsWith('<!', this.i)) throw new DecodeError(XML_DECL, 'markup declarations are not allowed')
      else if (s.charCodeAt(this.i) === 0x3c /* < */) return
      else throw new DecodeError(WELL_FORMED, `text is not allowed ${afterRoot ? 'after' : 'before'} the root element`)
    }
  }

  private comment(): void {
    const end = this.s.indexOf('-->', this.i + 4)
    if (end === -1) throw new DecodeError('XML 1.0 §2.5', 'a comment is not closed')
    this.i = end + 3
  }

  /** The root element and everything inside it, with an explicit stack (no recursion). */
  private element(): XmlElement {
    const stack: Frame[] = []
    const root = this.startTag(stack, ROOT_SCOPE)
    while (stack.length > 0) {
      const top = stack[stack.length - 1]
      const lt = this.s.indexOf('<', this.i)
      if (lt === -1) throw new DecodeError(WELL_FORMED, `element <${top.qname}> is not closed`)
      if (lt > this.i) top.parts.push(decodeText(this.s.slice(this.i, lt)))
      this.i = lt
      const next = this.s.charCodeAt(lt + 1)
      if (next === 0x2f /* / */) this.endTag(stack)
      else if (next === 0x21 /* ! */) this.markupInContent(top)
      else if (next === 0x3f /* ? */) processingInstruction()
      else this.startTag(stack, top.scope)
    }
    return root
  }

  private markupInContent(top: Frame): void {
    const s = this.s
    if (s.startsWith('<!--', this.i)) return this.comment()
    if (s.startsWith('<![CDATA[', this.i)) {
      const end = s.indexOf(']]>', this.i + 9)
      if (end === -1) throw new DecodeError('XML 1.0 §2.7', 'a CDATA section is not closed')
      top.parts.push(s.slice(this.i + 9, end))
      this.i = end + 3
      return
    }
    if (s.startsWith('<!DOCTYPE', this.i)) doctype()
    throw new DecodeError(XML_DECL, 'markup declarations are not allowed')
  }

  private startTag(stack: Frame[], parentScope: Scope): XmlElement {
    if (stack.length >= MAX_DEPTH) throw new DecodeError('', `elements are nested deeper than ${MAX_DEPTH} levels`)
    QNAME.lastIndex = this.i + 1
    const m = QNAME.exec(this.s)
    if (!m) throw new DecodeError(WELL_FORMED, 'a start tag has no valid element name')
    this.i = QNAME.lastIndex
    const raw = this.attributes()
    TAG_END.lastIndex = this.i
    const end = TAG_END.exec(this.s)
    if (!end) throw new DecodeError(WELL_FORMED, `the start tag <${m[0]}> is malformed`)
    this.i = TAG_END.lastIndex
    const scope = declareNamespaces(raw, parentScope)
    const el = makeElement(m[0], raw, scope)
    if (stack.length > 0) stack[stack.length - 1].el.children.push(el)
    if (end[1] !== '/') stack.push({ qname: m[0], el, parts: [], scope })
    return el
  }

  private attributes(): [string, string][] {
    const out: [string, string][] = []
    for (;;) {
      ATTRIBUTE.lastIndex = this.i
      const m = ATTRIBUTE.exec(this.s)
      if (!m) return out
      this.i = ATTRIBUTE.lastIndex
      const raw = m[2] ?? m[3]
      // XML 1.0 §3.3.3: literal whitespace in attribute values is normalised to spaces, character references are not.
      out.push([m[1], decodeText(raw.replace(/[\t\n]/g, ' '))])
    }
  }

  private endTag(stack: Frame[]): void {
    END_TAG.lastIndex = this.i
    const m = END_TAG.exec(this.s)
    const top = stack[stack.length - 1]
    if (!m) throw new DecodeError(WELL_FORMED, `a malformed end tag inside <${top.qname}>`)
    if (m[1] !== top.qname) throw new DecodeError(WELL_FORMED, `end tag </${m[1]}> does not match <${top.qname}>`)
    this.i = END_TAG.lastIndex
    top.el.text = top.parts.length === 1 ? top.parts[0] : top.parts.join('')
    stack.pop()
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d
}

function processingInstruction(): never {
  throw new DecodeError('XML 1.0 §2.6', 'processing instructions are not allowed (only the XML declaration, at the very start)')
}

function doctype(): never {
  throw new DecodeError(XML_DECL, 'a DOCTYPE declaration is not allowed (no DTDs, entity declarations or external entities)')
}

/** Apply xmlns / xmlns:p declarations of one start tag to a child scope (the parent's when there are none). */
function declareNamespaces(raw: [string, string][], parent: Scope): Scope {
  let scope = parent
  for (const [qname, value] of raw) {
    if (qname !== 'xmlns' && !qname.startsWith('xmlns:')) continue
    if (scope === parent) scope = Object.create(parent) as Scope
    const prefix = qname === 'xmlns' ? '' : qname.slice(6)
    if (prefix === 'xmlns' || prefix === 'xml' || value === XML_NS) {
      if (!(prefix === 'xml' && value === XML_NS)) throw new DecodeError(NAMESPACES, `the reserved prefix or namespace in ${qname} cannot be declared`)
    }
    if (prefix !== '' && value === '') throw new DecodeError(NAMESPACES, `prefix "${prefix}" cannot be bound to the empty namespace`)
    scope[prefix] = value
  }
  return scope
}

function makeElement(qname: string, raw: [string, string][], scope: Scope): XmlElement {
  const colon = qname.indexOf(':')
  const prefix = colon === -1 ? '' : qname.slice(0, colon)
  const ns = scope[prefix]
  if (prefix !== '' && ns === undefined) throw new DecodeError(NAMESPACES, `element <${qname}> uses an undeclared prefix "${prefix}"`)
  const attrs: Record<string, string> = {}
  for (const [name, value] of raw) {
    if (name === 'xmlns' || name.startsWith('xmlns:')) continue
    const c = name.indexOf(':')
    let key = name
    if (c !== -1) {
      const p = name.slice(0, c)
      if (scope[p] === undefined) throw new DecodeError(NAMESPACES, `attribute ${name} uses an undeclared prefix "${p}"`)
      if (p !== 'xml') continue // attributes in other namespaces are not part of any RPKI schema: ignored
      key = `xml:${name.slice(c + 1)}`
    }
    if (key === '__proto__') throw new DecodeError(WELL_FORMED, 'attribute name "__proto__" is not accepted')
    if (Object.prototype.hasOwnProperty.call(attrs, key)) throw new DecodeError('XML 1.0 §3.1', `attribute ${name} appears twice on <${qname}>`)
    attrs[key] = value
  }
  return { name: colon === -1 ? qname : qname.slice(colon + 1), ns: ns ?? '', attrs, children: [], text: '' }
}

/** Decode the five predefined entities and character references (XML 1.0 §4.1, §4.6); any other reference is refused. */
function decodeText(raw: string): string {
  let amp = raw.indexOf('&')
  if (amp === -1) return raw
  let out = ''
  let from = 0
  while (amp !== -1) {
    const semi = raw.indexOf(';', amp)
    const name = semi === -1 ? '' : raw.slice(amp + 1, semi)
    out += raw.slice(from, amp) + entity(name)
    from = semi + 1
    amp = raw.indexOf('&', from)
  }
  return out + raw.slice(from)
}

function entity(name: string): string {
  const predefined = PREDEFINED[name]
  if (predefined !== undefined && Object.prototype.hasOwnProperty.call(PREDEFINED, name)) return predefined
  const m = /^#(?:x([0-9A-Fa-f]{1,6})|([0-9]{1,7}))$/.exec(name)
  if (!m) {
    if (!/^#?[-A-Za-z0-9_.:]{1,64}$/.test(name)) throw new DecodeError('XML 1.0 §4.1', 'a bare "&" is not allowed (write &amp;)')
    throw new DecodeError('XML 1.0 §4.1', `entity reference &${name}; is not allowed: only &lt; &gt; &amp; &quot; &apos; and character references are (no DTD entities)`)
  }
  const cp = m[1] !== undefined ? parseInt(m[1], 16) : parseInt(m[2], 10)
  const ok = cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff)
  if (!ok) throw new DecodeError('XML 1.0 §4.1', `character reference &${name}; is not an XML character`)
  return String.fromCodePoint(cp)
}

//------------ Builder --------------------------------------------------------------------------------------------

/** A node for {@link buildXml}: attributes are written in the given order; `undefined` values are left out. */
export interface XmlNode {
  name: string
  attrs?: Record<string, string | number | bigint | undefined>
  children?: XmlNode[]
  text?: string
}

export interface BuildXmlOptions {
  /** Default namespace, written as the first attribute of the root. */
  ns: string
  /** Start with `<?xml version="1.0" encoding="UTF-8"?>` (default false). */
  declaration?: boolean
}

/**
 * Canonical, stable output: 2-space indentation, one element per line, text kept on the element's line, empty
 * elements self-closed (`<list/>`), `&<>"` escaped, ending with a newline.
 */
export function buildXml(root: XmlNode, opts: BuildXmlOptions): string {
  const out: string[] = []
  if (opts.declaration) out.push('<?xml version="1.0" encoding="UTF-8"?>\n')
  writeNode(out, root, '', { xmlns: opts.ns, ...root.attrs })
  return out.join('')
}

function writeNode(out: string[], node: XmlNode, indent: string, attrs: XmlNode['attrs']): void {
  let open = `${indent}<${node.name}`
  for (const key in attrs) {
    const v = attrs[key]
    if (v !== undefined) open += ` ${key}="${escapeAttr(String(v))}"`
  }
  const children = node.children ?? []
  if (children.length > 0) {
    out.push(`${open}>\n`)
    for (const child of children) writeNode(out, child, indent + '  ', child.attrs)
    out.push(`${indent}</${node.name}>\n`)
  } else if (node.text !== undefined && node.text !== '') {
    out.push(`${open}>${escapeText(node.text)}</${node.name}>\n`)
  } else {
    out.push(`${open}/>\n`)
  }
}

const TEXT_SPECIAL = /[&<>\r]/
const ATTR_SPECIAL = /[&<>"\t\n\r]/
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' }

/** Escape element text: `& < >` (and CR, which a parser would otherwise turn into LF). */
export function escapeText(text: string): string {
  return TEXT_SPECIAL.test(text) ? text.replace(/[&<>\r]/g, (c) => ESCAPES[c]) : text
}

/** Escape an attribute value: `& < > "`, and TAB/LF/CR as character references so they survive normalisation. */
export function escapeAttr(text: string): string {
  return ATTR_SPECIAL.test(text) ? text.replace(/[&<>"\t\n\r]/g, (c) => ESCAPES[c]) : text
}
