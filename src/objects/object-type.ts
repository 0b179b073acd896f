/**
 * Which kind of RPKI file some bytes are, from their content (the ASN.1 shape and the CMS eContentType), with the
 * file name's extension only as a fallback: certificate, CRL, manifest, ROA, ASPA, TAK, Ghostbusters record, other signed
 * object, RFC 6492/8181 CMS, PKCS#10 request, TAL, or XML (an RFC 8183 document, decoded by protocol/); also an RSC
 * (RFC 9323, `.sig`). Used by `svcc inspect`.
 */
import { type BerNode, berStringValue, parseBer } from '../asn1/ber.js'
import { oidContent } from '../asn1/der.js'
import * as oids from '../asn1/oids.js'
import { asBytes, bytesEqual } from '../util/bytes.js'

export type ObjectType =
  | 'cert' | 'crl' | 'manifest' | 'roa' | 'aspa' | 'tak' | 'gbr' | 'signed-object' | 'cms-xml' | 'csr' | 'tal' | 'xml' | 'unknown'
  | 'rsc'

const BY_EXTENSION: Record<string, ObjectType> = {
  cer: 'cert', crt: 'cert', crl: 'crl', mft: 'manifest', roa: 'roa', asa: 'aspa', tak: 'tak', gbr: 'gbr', tal: 'tal', xml: 'xml', csr: 'csr',
  sig: 'rsc',
}

const BY_CONTENT_TYPE: ReadonlyMap<string, ObjectType> = new Map([
  [oids.idCtRpkiManifest, 'manifest'], [oids.idCtRouteOriginAuthz, 'roa'], [oids.idCtAspa, 'aspa'], [oids.idCtSignedTal, 'tak'],
  [oids.idCtRpkiGhostbusters, 'gbr'], [oids.idCtXml, 'cms-xml'],
  [oids.idCtSignedChecklist, 'rsc'],
])

/** The type of `bytes`; `fileName` decides only when the content does not. */
export function detectObjectType(bytes: Uint8Array, fileName?: string): ObjectType {
  const byContent = fromContent(asBytes(bytes))
  if (byContent !== 'unknown') return byContent
  const ext = fileName?.toLowerCase().match(/\.([a-z]+)$/)?.[1]
  return (ext !== undefined && BY_EXTENSION[ext]) || 'unknown'
}

function fromContent(bytes: Uint8Array): ObjectType {
  let i = 0
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++
  if (bytes[i] === 0x3c) return 'xml'
  if (bytes[0] === 0x30) return fromAsn1(bytes)
  return looksLikeTal(bytes) ? 'tal' : 'unknown'
}

/** A TAL is ASCII text with a URI line (RFC 8630 §2.2); decodeTal checks the rest. */
function looksLikeTal(bytes: Uint8Array): boolean {
  if (bytes.length > 64 * 1024) return false
  for (const b of bytes) if (b > 0x7e) return false
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
  return /^(rsync|https?):\/\//m.test(text)
}

function fromAsn1(bytes: Uint8Array): ObjectType {
  let root: BerNode
  try {
    root = parseBer(bytes, { maxNodes: 100_000 })
  } catch {
    // Not even BER: nothing to detect (the decoder will say what is wrong).
    return 'unknown'
  }
  const top = root.children
  if (top[0]?.tag === 0x06) return fromContentInfo(root)
  const tbs = top[0]
  if (tbs?.tag !== 0x30 || top.length !== 3) return 'unknown'
  const t = tbs.children.map((c) => c.tag)
  if (t[0] === 0xa0) return 'cert'
  const time = (x: number | undefined): boolean => x === 0x17 || x === 0x18
  if ((t[0] === 0x02 && time(t[3])) || (t[0] === 0x30 && time(t[2]))) return 'crl'
  if (t[0] === 0x02 && t[1] === 0x30 && t[2] === 0x30 && t[3] === 0xa0) return 'csr'
  if (t[0] === 0x02 && t[3] === 0x30) return 'cert'
  return 'unknown'
}

function fromContentInfo(root: BerNode): ObjectType {
  const [type, wrapper] = root.children
  if (!bytesEqual(berStringValue(type), oidContent(oids.idSignedData))) return 'unknown'
  const eci = wrapper?.children[0]?.children[2]
  const eType = eci?.children[0]
  if (eType?.tag !== 0x06) return 'unknown'
  for (const [oid, t] of BY_CONTENT_TYPE) if (bytesEqual(berStringValue(eType), oidContent(oid))) return t
  return 'signed-object'
}
