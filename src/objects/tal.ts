/**
 * Trust Anchor Locators (RFC 8630 §2.2): optional '#' comment lines, one or more rsync or https URIs of the TA
 * certificate, an empty line, and the TA's SubjectPublicKeyInfo in base64 (wrapped at any width). Verbs: decodeTal
 * (strict: anything else is a DecodeError naming the rule), inspectTal, talMatches (RFC 8630 §2.3), encodeTal
 * (https URIs first, then rsync). Used by the embedded trust anchor (ta/), `svcc inspect` and the tests.
 */
import { EncodeError } from '../asn1/der.js'
import { expectSequence, parseDer } from '../asn1/der-reader.js'
import { fromBase64, toBase64 } from '../util/base64.js'
import { asBytes, bytesEqual } from '../util/bytes.js'
import { DecodeError, LibraryError } from '../util/errors.js'
import { parseUri } from '../util/uri.js'
import { type PublicKeyInfo, readPublicKeyInfo } from './algorithm.js'
import type { Cert } from './cert.js'
import { note, type Problem, problem } from './problem.js'

export interface Tal {
  /** The comment lines without their leading '#' (RFC 8630 §2.2 (1)). */
  readonly comments: readonly string[]
  /** The TA certificate URIs in file order. */
  readonly uris: readonly string[]
  /** The TA's SubjectPublicKeyInfo DER. */
  readonly spki: Uint8Array
  readonly publicKey: PublicKeyInfo
}

export interface TalSpec {
  uris: readonly string[]
  spki: Uint8Array
  comments?: readonly string[]
}

const RULE = 'RFC 8630 §2.2'
/** Larger than any real TAL (about 500 bytes); keeps hostile input cheap. */
const MAX_TAL_BYTES = 64 * 1024

//------------ Decoding ------------------------------------------------------------------------------------------------

/** Decode a TAL; CRLF line ends and trailing blank lines are fine, anything else out of place is a DecodeError. */
export function decodeTal(input: string | Uint8Array): Tal {
  const text = typeof input === 'string' ? input : decodeAscii(asBytes(input))
  if (text.length > MAX_TAL_BYTES) throw new DecodeError(RULE, `TAL of ${text.length} characters is too large`)
  const lines = text.replace(/\r\n/g, '\n').split('\n')
  let i = 0
  const comments: string[] = []
  for (; i < lines.length && lines[i].startsWith('#'); i++) comments.push(lines[i].slice(1).trim())
  const uris: string[] = []
  for (; i < lines.length && lines[i].trim() !== ''; i++) uris.push(checkUri(lines[i].trim(), i + 1))
  if (uris.length === 0) throw new DecodeError(RULE, 'no TA certificate URI before the empty line')
  if (i >= lines.length) throw new DecodeError(RULE, 'no empty line between the URIs and the public key')
  const keyText = lines.slice(i + 1).join('\n')
  if (keyText.trim() === '') throw new DecodeError(RULE, 'the subjectPublicKeyInfo is missing')
  const spki = decodeKey(keyText)
  return { comments, uris, spki, publicKey: readKey(spki) }
}

function decodeAscii(bytes: Uint8Array): string {
  let s = ''
  for (let i = 0; i < bytes.length && i <= MAX_TAL_BYTES; i++) {
    if (bytes[i] > 0x7e || (bytes[i] < 0x20 && bytes[i] !== 0x0a && bytes[i] !== 0x0d && bytes[i] !== 0x09)) {
      throw new DecodeError(RULE, `a TAL is ASCII text; found the octet 0x${bytes[i].toString(16)} at offset ${i}`)
    }
    s += String.fromCharCode(bytes[i])
  }
  return s
}

/** RFC 8630 §2.2 (2): each URI is an rsync or an https URI. */
function checkUri(uri: string, line: number): string {
  let scheme: string
  try {
    scheme = parseUri(uri).scheme
  } catch (e) {
    // Library code does not catch; this rethrow only adds the TAL's rule and line to the URI parser's reason.
    if (e instanceof LibraryError) throw new DecodeError(RULE, `line ${line}: ${e.message}`, { cause: e })
    throw e
  }
  if (scheme !== 'rsync' && scheme !== 'https') throw new DecodeError(RULE, `line ${line}: ${JSON.stringify(uri)} is neither an rsync nor an https URI`)
  return uri
}

/** RFC 8630 §2.2 (4): the base64 subjectPublicKeyInfo; bad base64 is a DecodeError naming the rule. */
function decodeKey(text: string): Uint8Array {
  const clean = text.replace(/[ \t\n]+/g, '')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 !== 0) {
    throw new DecodeError(RULE, 'the subjectPublicKeyInfo is not valid base64')
  }
  return fromBase64(clean)
}

function readKey(spki: Uint8Array): PublicKeyInfo {
  const node = parseDer(spki, { maxNodes: 64, maxDepth: 8 })
  expectSequence(node, RULE, 'subjectPublicKeyInfo')
  return readPublicKeyInfo(node)
}

//------------ Inspection ----------------------------------------------------------------------------------------------

/** RFC 8630 and RFC 7935 problems: an RSA-2048 key with exponent 65537, unique URIs, an https URI (SHOULD). */
export function inspectTal(tal: Tal): Problem[] {
  const out: Problem[] = []
  const rsa = tal.publicKey.rsa
  if (rsa === undefined) out.push(problem('RFC 7935 §3', 'the TA key is not an RSA key'))
  else if (rsa.modulusBits !== 2048 || rsa.exponent !== 65537n) out.push(problem('RFC 7935 §3', `RSA key of ${rsa.modulusBits} bits, exponent ${rsa.exponent}; expected 2048 and 65537`))
  if (new Set(tal.uris).size !== tal.uris.length) out.push(problem(RULE, 'a URI appears twice'))
  if (!tal.uris.some((u) => u.startsWith('https://'))) out.push(note('RFC 8630 §2.3', 'no https URI (rsync only)'))
  return out
}

/** RFC 8630 §2.3: the TA certificate's public key is the TAL's. */
export function talMatches(tal: Tal, ta: Cert): boolean {
  return bytesEqual(tal.spki, ta.spki)
}

//------------ Encoding ------------------------------------------------------------------------------------------------

/** A TAL: comments, the https URIs then the rsync URIs, an empty line, the key in base64 at 64 columns. */
export function encodeTal(spec: TalSpec): string {
  const uris = [...spec.uris.filter((u) => u.startsWith('https://')), ...spec.uris.filter((u) => u.startsWith('rsync://'))]
  if (uris.length !== spec.uris.length || uris.length === 0) throw new EncodeError(RULE, 'a TAL needs one or more URIs, each rsync or https')
  for (const [i, u] of uris.entries()) checkUri(u, i + 1)
  readKey(spec.spki)
  const comments = (spec.comments ?? []).map((c) => {
    if (/[\r\n]/.test(c)) throw new EncodeError(RULE, 'a comment must be one line')
    return `# ${c}`
  })
  const b64 = toBase64(spec.spki).match(/.{1,64}/g) ?? []
  return [...comments, ...uris, '', ...b64].join('\n') + '\n'
}
