/**
 * The XML layer under the RFC 6492, 8181, 8182 and 8183 codecs; the only home of fast-xml-parser and xmlbuilder2
 * (design.md §2, style.md §5).
 *
 * Parsing: fast-xml-parser tokenises and builds the ordered tree, with positions. This file adds what it does not
 * do: namespaces resolved by declaration (`xmlns`, `xmlns:p`, redeclaration, `xml:`) into {@link XmlElement}s,
 * and strictness. Its parser is lenient (any end tag closes the open element, the last of two equal attributes
 * wins, text outside the root is dropped), so each element's tags are re-read where it found them; its validator
 * is deprecated and lets malformed tags through, so it is not used. Refused before the library sees the text:
 * more than `maxBytes`, anything but UTF-8, control characters, any DOCTYPE or other markup declaration (no XXE,
 * no billion laughs), processing instructions but the XML declaration (those checks are in xml-prescan.ts); after: a
 * second root, more than 64 levels.
 * Its entity processing is off (it keeps unknown references as text, decodes numeric ones only with HTML entities
 * on, and decodes attribute values before XML 1.0 §3.3.3 normalisation): references are decoded here, only the
 * five predefined entities and character references.
 *
 * Building: xmlbuilder2 lays out the canonical form (2-space indent, `<x/>`, attributes in the given order). Text
 * and attribute values reach it escaped by {@link escapeText} / {@link escapeAttr} (shared with the RRDP fast
 * path), and pass through unchanged: alone it would leave an `&` that looks like a reference unescaped and keep
 * TAB/LF/CR literal in attributes.
 *
 * Speed (parse): a 32 MiB RFC 8181 query ≈ 0.6 s (9/10 in the library), a 2 KB message ≈ 40 µs; the hand
 * scanner this replaced took 55 ms and 6 µs.
 */
import { XMLParser } from 'fast-xml-parser'
import { create } from 'xmlbuilder2'
import { DecodeError } from '../util/errors.js'
import { checkEncoding, declaration, misc, processingInstruction, scanMarkup, toText, WELL_FORMED } from './xml-prescan.js'

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
const NAMESPACES = 'Namespaces in XML 1.0 §5'

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }
// Start and end tags as XML 1.0 §3.1 has them, with QNames (Namespaces in XML 1.0 §3), re-read where the library
// found them. Non-ASCII name characters leave out those JavaScript's \s matches: the library splits names there.
const WIDE = '\\u00C0-\\u167F\\u1681-\\u1FFF\\u200B-\\u2027\\u202A-\\u202E\\u2030-\\u205E\\u2060-\\u2FFF\\u3001-\\uFEFE\\uFF00-\\uFFFF'
const NCNAME = `[A-Za-z_${WIDE}][-A-Za-z0-9._\\u00B7-\\u00BF${WIDE}]*`
const QNAME = `${NCNAME}(?::${NCNAME})?`
const START_TAG = new RegExp(`<(${QNAME})((?:[ \\t\\n]+${QNAME}[ \\t\\n]*=[ \\t\\n]*(?:"[^"<]*"|'[^'<]*'))*)[ \\t\\n]*(/?)>`, 'y')
const ATTRIBUTE_VALUE = /=[ \t\n]*(?:"[^"]*"|'[^']*')/g
const END_TAG = new RegExp(`</(${QNAME})[ \\t\\n]*>`, 'y')

// fast-xml-parser's ordered tree: each node is `{ [name]: children, ':@'?: attributes }`, text `{ '#text': s }`.
type OrderedNode = Record<string | symbol, unknown>
const ATTRS = ':@'
const ATTR_PREFIX = '@_'
const TEXT = '#text'
const CDATA = '#cdata'
const DECL_NODE = '?xml'
const PARSER = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: ATTR_PREFIX, // keeps names such as __proto__ or toString away from the library's renaming
  parseTagValue: false,
  trimValues: false,
  processEntities: false, // decoded below, strictly (see the header)
  cdataPropName: CDATA,
  maxNestedTags: MAX_DEPTH - 1, // the library counts open ancestors; ours counts levels
  captureMetaData: true, // where each element's tags are, to re-read them, and what follows the root
  jPath: false,
  onDangerousProperty: (name: string) => name, // tag names stay as written: children are arrays, not maps
})
const META = XMLParser.getMetaDataSymbol() as unknown as symbol
type Where = { startIndex?: number; endIndex?: number } | undefined

/** Parse one XML document (string or UTF-8 bytes) into its root element, refusing anything unsafe or malformed. */
export function parseXml(input: string | Uint8Array, opts: ParseXmlOptions = {}): XmlElement {
  const text = toText(input, opts.maxBytes ?? DEFAULT_MAX_XML_BYTES)
  const decl = declaration(text)
  const tags = scanMarkup(text, decl.end)
  checkEncoding(decl.encoding)
  return documentElement({ s: text, tags: 0 }, decl.end, tags, tokenise(text))
}

function tooDeep(): never {
  throw new DecodeError('', `elements are nested deeper than ${MAX_DEPTH} levels`)
}

function tokenise(s: string): OrderedNode[] {
  try {
    return PARSER.parse(s) as OrderedNode[]
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e)
    if (msg === 'Maximum nested tags exceeded') tooDeep()
    const reserved = /^\[SECURITY\] Invalid name: "(.*?)"/.exec(msg)
    if (reserved) throw new DecodeError(WELL_FORMED, `element name <${reserved[1]}> is not accepted`)
    throw new DecodeError(WELL_FORMED, `the document is not well-formed: ${msg.slice(0, 120)}`)
  }
}

/** The text and the number of tags re-read so far. */
interface Reading {
  s: string
  tags: number
}

/**
 * The single root, with only whitespace and comments around it (XML 1.0 §2.1 document, §2.8 prolog, Misc), and
 * every tag re-read: a `<` the library swallowed (as in `</a</b>`) leaves the count short.
 */
function documentElement(r: Reading, from: number, tags: number, nodes: OrderedNode[]): XmlElement {
  const node = nodes.find((n) => nodeName(n) !== DECL_NODE)
  const at = (node?.[META] as Where)?.startIndex
  misc(r.s, from, at ?? r.s.length, 'before')
  if (node === undefined) throw new DecodeError(WELL_FORMED, 'the document has no root element')
  const name = nodeName(node)
  if (at === undefined || name === CDATA) throw new DecodeError(WELL_FORMED, 'text is not allowed before the root element')
  const root = toElement(r, node, name, ROOT_SCOPE, 1)
  misc(r.s, (node[META] as Where)?.endIndex ?? r.s.length, r.s.length, 'after')
  if (r.tags !== tags) throw new DecodeError(WELL_FORMED, 'a "<" is not part of a well-formed tag')
  return root
}

function nodeName(node: OrderedNode): string {
  for (const key in node) if (key !== ATTRS) return key
  return ''
}

//------------ Elements, namespaces and references --------------------------------------------------------------

type Scope = Record<string, string>

const ROOT_SCOPE: Scope = Object.assign(Object.create(null) as Scope, { xml: XML_NS })

/** One element of the ordered tree and its subtree, tags re-read, namespaces resolved (depth capped by the library). */
function toElement(r: Reading, node: OrderedNode, qname: string, parentScope: Scope, depth: number): XmlElement {
  if (depth > MAX_DEPTH) tooDeep()
  const attrs = node[ATTRS] as Record<string, string> | undefined
  const selfClosing = checkStartTag(r, node, qname, attrs)
  const raw = rawAttributes(attrs)
  const scope = declareNamespaces(raw, parentScope)
  const el = makeElement(qname, raw, scope)
  const parts: string[] = []
  for (const child of node[qname] as OrderedNode[]) {
    const name = nodeName(child)
    if (name === TEXT) parts.push(decodeText(child[TEXT] as string))
    else if (name === CDATA) parts.push(String((child[CDATA] as OrderedNode[])[0]?.[TEXT] ?? ''))
    else if (name.startsWith('?')) processingInstruction() // refused before parsing already
    else el.children.push(toElement(r, child, name, scope, depth + 1))
  }
  el.text = parts.length === 1 ? parts[0] : parts.join('')
  if (!selfClosing) checkEndTag(r, node, qname)
  return el
}

/**
 * The start tag as written (XML 1.0 §3.1), re-read where the library found it: the library's parser takes any
 * `<...>` as a tag, keeps the last of two equal attributes, and cuts names at Unicode spaces. Self-closing or not.
 */
function checkStartTag(r: Reading, node: OrderedNode, qname: string, attrs: Record<string, string> | undefined): boolean {
  const at = (node[META] as Where)?.startIndex
  START_TAG.lastIndex = at ?? 0
  const m = at === undefined ? null : START_TAG.exec(r.s)
  if (m === null || m[1] !== qname) throw new DecodeError(WELL_FORMED, `the start tag <${qname}> is malformed`)
  const count = m[2].match(ATTRIBUTE_VALUE)?.length ?? 0
  if (count !== (attrs === undefined ? 0 : Object.keys(attrs).length)) {
    throw new DecodeError('XML 1.0 §3.1', `an attribute appears twice on <${qname}>`)
  }
  r.tags++
  return m[3] === '/'
}

/** The end tag that closed the element in the library's reading must carry its name (XML 1.0 §3 element type match). */
function checkEndTag(r: Reading, node: OrderedNode, qname: string): void {
  const end = (node[META] as Where)?.endIndex
  if (end === undefined) throw new DecodeError(WELL_FORMED, `element <${qname}> is not closed`)
  END_TAG.lastIndex = r.s.lastIndexOf('</', end - 1)
  const m = END_TAG.exec(r.s)
  if (m === null || END_TAG.lastIndex !== end) throw new DecodeError(WELL_FORMED, `a malformed end tag closes <${qname}>`)
  if (m[1] !== qname) throw new DecodeError(WELL_FORMED, `end tag </${m[1]}> does not match <${qname}>`)
  r.tags++
}

/** Attribute names without the library's prefix, values normalised and decoded, in document order. */
function rawAttributes(attrs: Record<string, string> | undefined): [string, string][] {
  const out: [string, string][] = []
  if (attrs === undefined) return out
  for (const key of Object.keys(attrs)) {
    // XML 1.0 §3.3.3: literal whitespace in attribute values is normalised to spaces, character references are not.
    out.push([key.slice(ATTR_PREFIX.length), decodeText(attrs[key].replace(/[\t\n]/g, ' '))])
  }
  return out
}

/** Prefix and local part of a QName (its shape is checked with the start tag). */
function splitQName(qname: string): [string, string] {
  const colon = qname.indexOf(':')
  return colon === -1 ? ['', qname] : [qname.slice(0, colon), qname.slice(colon + 1)]
}

/** Apply xmlns / xmlns:p declarations of one start tag to a child scope (the parent's when there are none). */
function declareNamespaces(raw: [string, string][], parent: Scope): Scope {
  let scope = parent
  for (const [qname, value] of raw) {
    if (qname !== 'xmlns' && !qname.startsWith('xmlns:')) continue
    if (scope === parent) scope = Object.create(parent) as Scope
    const prefix = qname === 'xmlns' ? '' : splitQName(qname)[1]
    if (prefix === 'xmlns' || prefix === 'xml' || value === XML_NS) {
      if (!(prefix === 'xml' && value === XML_NS)) throw new DecodeError(NAMESPACES, `the reserved prefix or namespace in ${qname} cannot be declared`)
    }
    if (prefix !== '' && value === '') throw new DecodeError(NAMESPACES, `prefix "${prefix}" cannot be bound to the empty namespace`)
    scope[prefix] = value
  }
  return scope
}

function makeElement(qname: string, raw: [string, string][], scope: Scope): XmlElement {
  const [prefix, local] = splitQName(qname)
  const ns = scope[prefix]
  if (prefix !== '' && ns === undefined) throw new DecodeError(NAMESPACES, `element <${qname}> uses an undeclared prefix "${prefix}"`)
  const attrs: Record<string, string> = {}
  for (const [name, value] of raw) {
    if (name === 'xmlns' || name.startsWith('xmlns:')) continue
    const [p, attrLocal] = splitQName(name)
    let key = name
    if (p !== '') {
      if (scope[p] === undefined) throw new DecodeError(NAMESPACES, `attribute ${name} uses an undeclared prefix "${p}"`)
      if (p !== 'xml') continue // attributes in other namespaces are not part of any RPKI schema: ignored
      key = `xml:${attrLocal}`
    }
    if (key === '__proto__') throw new DecodeError(WELL_FORMED, 'attribute name "__proto__" is not accepted')
    if (Object.prototype.hasOwnProperty.call(attrs, key)) throw new DecodeError('XML 1.0 §3.1', `attribute ${name} appears twice on <${qname}>`)
    attrs[key] = value
  }
  return { name: local, ns: ns ?? '', attrs, children: [], text: '' }
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
 * elements self-closed (`<list/>`), `&<>"` escaped, ending with a newline. Text is left out of elements that
 * have children.
 */
export function buildXml(root: XmlNode, opts: BuildXmlOptions): string {
  const doc = create(opts.declaration ? { version: '1.0', encoding: 'UTF-8' } : {})
  addNode(doc, root, { xmlns: opts.ns, ...root.attrs })
  return `${doc.end({ headless: !opts.declaration, prettyPrint: true, indent: '  ', newline: '\n' })}\n`
}

type Builder = ReturnType<typeof create>

function addNode(parent: Builder, node: XmlNode, attrs: XmlNode['attrs']): void {
  const el = parent.ele(node.name)
  for (const key in attrs) {
    const v = attrs[key]
    if (v !== undefined) el.att(key, escapeAttr(String(v)))
  }
  const children = node.children ?? []
  if (children.length > 0) for (const child of children) addNode(el, child, child.attrs)
  else if (node.text !== undefined && node.text !== '') el.txt(escapeText(node.text))
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
