/**
 * Base64 ⇄ bytes with strict input rules. Whitespace anywhere is ignored (RFC 8183 and RFC 8181 bodies are wrapped
 * at 60, 64 or 76 columns, or indented). Unicode space and format characters such as U+200B are stripped only when
 * the caller asks (`stripUnicodeSpace`), as fixtures/README.md §3 allows for RFC 8183 documents.
 */
import { ParseError } from './errors.js'

const XML_WHITESPACE = /[ \t\r\n]+/g
// Unicode "space separator" and "format" characters (U+200B ZERO WIDTH SPACE, U+FEFF, U+00A0, …).
const UNICODE_SPACE = /[\p{Zs}\p{Zl}\p{Zp}\p{Cf}]+/gu

export interface Base64Options {
  /** Also strip Unicode space and format characters before decoding (default false). */
  stripUnicodeSpace?: boolean
}

/** Standard base64 (with padding) of the bytes, on one line. */
export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
}

/** Decode standard base64; whitespace is ignored, anything else that is not base64 is a ParseError. */
export function fromBase64(text: string, options: Base64Options = {}): Uint8Array {
  let clean = text.replace(XML_WHITESPACE, '')
  if (options.stripUnicodeSpace) clean = clean.replace(UNICODE_SPACE, '')
  if (!isBase64(clean)) throw new ParseError('RFC 4648 §4', 'text is not valid base64')
  return new Uint8Array(Buffer.from(clean, 'base64'))
}

/** One linear pass (no regex backtracking, any size): alphabet, length a multiple of 4, padding only at the end. */
function isBase64(s: string): boolean {
  const n = s.length
  if (n % 4 !== 0) return false
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0
  for (let i = 0; i < n - pad; i++) {
    const c = s.charCodeAt(i)
    const ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47
    if (!ok) return false
  }
  return true
}

/** base64url without padding (RFC 4648 §5), as used for RFC 6492 `ski` attributes. */
export function toBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url')
}

/** Decode base64url; padding is tolerated (one implementation sends it), other characters are a ParseError. */
export function fromBase64Url(text: string): Uint8Array {
  const clean = text.replace(XML_WHITESPACE, '').replace(/=+$/, '')
  if (!/^[A-Za-z0-9_-]*$/.test(clean) || clean.length % 4 === 1) {
    throw new ParseError('RFC 4648 §5', 'text is not valid base64url')
  }
  return new Uint8Array(Buffer.from(clean, 'base64url'))
}
