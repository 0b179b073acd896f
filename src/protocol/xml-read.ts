/**
 * Reading helpers shared by the RFC 6492, 8181, 8182 and 8183 decoders: required and optional attributes, children
 * and text checks, strict base64 and hex hashes, each failing with a DecodeError that names the rule and the element.
 */
import { DecodeError } from '../util/errors.js'
import type { XmlElement } from './xml.js'

/** A value shown in an error message: quoted, cut at 80 characters, invisible and non-ASCII characters escaped. */
export function show(value: string): string {
  const cut = value.length > 80 ? `${value.slice(0, 80)}…` : value
  return `"${cut.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`
}

/** A required attribute. */
export function attr(el: XmlElement, name: string, rule: string): string {
  const v = el.attrs[name]
  if (v === undefined) throw new DecodeError(rule, `<${el.name}> has no ${name} attribute`)
  return v
}

/** An optional attribute. */
export function optAttr(el: XmlElement, name: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(el.attrs, name) ? el.attrs[name] : undefined
}

/**
 * Refuse non-whitespace text directly inside a container or empty element. `unicodeSpace` also lets Unicode
 * space and format characters pass (RFC 8183 documents pasted through chat tools carry U+200B between elements).
 */
export function noText(el: XmlElement, rule: string, unicodeSpace = false): void {
  const text = unicodeSpace ? el.text.replace(/[\p{Zs}\p{Zl}\p{Zp}\p{Cf}]/gu, '') : el.text
  if (/[^ \t\n\r]/.test(text)) throw new DecodeError(rule, `<${el.name}> must not contain text`)
}

/** Refuse child elements inside an element that holds only text. */
export function noChildren(el: XmlElement, rule: string): void {
  if (el.children.length > 0) throw new DecodeError(rule, `<${el.name}> must not contain <${el.children[0].name}>`)
}

/** The single child of a given name, refusing none or several. */
export function onlyChild(el: XmlElement, name: string, rule: string): XmlElement {
  const found = el.children.filter((c) => c.name === name)
  if (found.length !== 1) {
    throw new DecodeError(rule, `<${el.name}> must contain exactly one <${name}>, found ${found.length}`)
  }
  return found[0]
}

// Base64 alphabet (1), XML whitespace (2) and '=' (3), by character code.
const B64 = new Uint8Array(128)
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') B64[c.charCodeAt(0)] = 1
for (const c of ' \t\n\r') B64[c.charCodeAt(0)] = 2
B64[0x3d] = 3

/**
 * Strict standard base64 (RFC 4648 §4) with XML whitespace anywhere, as RFC 6492/8181/8182 bodies are wrapped at
 * 60, 64 or 76 columns or indented. One table-driven pass (no regex backtracking, so multi-megabyte objects work),
 * then Node's decoder, which skips the whitespace.
 */
export function base64Text(text: string, rule: string, where: string): Uint8Array {
  let n = 0
  let pad = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    const k = c < 128 ? B64[c] : 0
    if (k === 1 && pad === 0) n++
    else if (k === 3 && pad < 2) pad++
    else if (k !== 2) throw new DecodeError(rule, `${where} is not valid base64 (character ${show(text.charAt(i))})`)
  }
  if ((n + pad) % 4 !== 0) throw new DecodeError(rule, `${where} is not valid base64 (length)`)
  // A copy, so the result never shares Node's buffer pool with unrelated data.
  return new Uint8Array(Buffer.from(text, 'base64'))
}

/** A hex hash attribute, normalised to lowercase; `length` (in hex digits) is checked only where the RFC fixes it. */
export function hexHash(value: string, rule: string, where: string, length?: number): string {
  if (!/^[0-9a-fA-F]+$/.test(value)) throw new DecodeError(rule, `${where} hash ${show(value)} is not hexadecimal`)
  if (length !== undefined && value.length !== length) {
    throw new DecodeError(rule, `${where} hash ${show(value)} must have ${length} hex digits`)
  }
  return value.toLowerCase()
}

/** `value` with the optional `tag` attribute of `el` (RFC 8183 §5, RFC 8181 §2.3), when there is one. */
export function withTag<T extends { tag?: string }>(value: T, el: XmlElement): T {
  const tag = optAttr(el, 'tag')
  if (tag !== undefined) value.tag = tag
  return value
}
