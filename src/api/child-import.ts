/**
 * Moving a delegated child between parents (krill-reference.md §1.1 "Children", Krill's api/import.rs ImportChild):
 * the JSON that GET …/children/{child}/export answers and POST …/children/{child}/import takes, and its checks. The
 * issued certificate travels as what a new parent needs to certify the same key again (Krill's CsrInfo: the key and
 * the SIA), never as a private key. Used by http/routes/child-transfer.ts, app/ca/child-transfer.ts and svcc.
 */
import { parseDer } from '../asn1/der-reader.js'
import { rsaEncryption } from '../asn1/oids.js'
import { readPublicKeyInfo } from '../objects/algorithm.js'
import type { ResourceSetText } from '../resources/resource-set.js'
import { fromBase64 } from '../util/base64.js'
import { isWireHandle } from '../util/handle.js'
import { checkResourcesJson } from './cas.js'

/** The certificate the child holds, as its new parent certifies it again (Krill's ImportChildCertificate). */
export interface ImportChildCertificateJson {
  /** caRepository of the certificate's SIA (rsync, ends in '/'). */
  ca_repository: string
  /** rpkiManifest of the SIA (rsync, inside ca_repository). */
  rpki_manifest: string
  /** rpkiNotify of the SIA (https), when the child publishes over RRDP. */
  rpki_notify?: string | null
  /** The child's public key: base64 of its DER SubjectPublicKeyInfo. */
  key: string
  /** The class name the child knows its certificate under, when it differs from the parent's (Krill's mapping). */
  class_name?: string | null
}

/** Krill's ImportChild (and ExportChild, the same type): a child with its identity, resources and certificate. */
export interface ImportChildJson {
  /** The child's handle under the parent; must equal the {child} of the import path. */
  name: string
  /** The child's BPKI identity certificate (RFC 8183), base64 DER. */
  id_cert: string
  resources: ResourceSetText
  issued_cert: ImportChildCertificateJson
}

/** The longest URI accepted in the SIA (as objects/csr.ts MAX_SIA_URI_LENGTH: rpki-client's limit). */
const MAX_URI = 2048

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The shape of an import body (types only); undefined when it fits. The values are checked by childImportProblems. */
export function checkImportChild(v: unknown): string | undefined {
  const shape = 'expected {"name","id_cert","resources":{"asn","ipv4","ipv6"},"issued_cert":{"ca_repository","rpki_manifest","rpki_notify"?,"key","class_name"?}}'
  if (!isObj(v) || typeof v.name !== 'string' || typeof v.id_cert !== 'string' || !isObj(v.issued_cert)) return shape
  const res = checkResourcesJson(v.resources)
  if (res) return res
  const c = v.issued_cert
  for (const k of ['ca_repository', 'rpki_manifest', 'key']) if (typeof c[k] !== 'string') return `issued_cert.${k} must be a string`
  for (const k of ['rpki_notify', 'class_name']) if (c[k] !== undefined && c[k] !== null && typeof c[k] !== 'string') return `issued_cert.${k} must be a string`
  return undefined
}

/**
 * What is wrong with the values of an import body, first problem first (empty when nothing is): the name a child
 * handle (RFC 8183 §5); the key an RSA-2048 SubjectPublicKeyInfo with exponent 65537 (RFC 7935 §3: a CA key); the
 * SIA as relying parties check it (RFC 6487 §4.8.8.1: caRepository a directory and rpkiManifest inside it, rsync;
 * RFC 8182 §3.2: rpkiNotify https; printable ASCII without dot segments, RFC 3986).
 */
export function childImportProblems(j: ImportChildJson): string[] {
  const out: string[] = []
  if (!isWireHandle(j.name)) out.push(`RFC 8183 §5: '${j.name}' is not a valid child handle`)
  const c = j.issued_cert
  out.push(...keyProblems(c.key))
  const repo = uriProblem('ca_repository', c.ca_repository, 'rsync', 'RFC 6487 §4.8.8.1')
  const mft = uriProblem('rpki_manifest', c.rpki_manifest, 'rsync', 'RFC 6487 §4.8.8.1')
  for (const p of [repo, mft]) if (p) out.push(p)
  if (!repo && !c.ca_repository.endsWith('/')) out.push('RFC 6487 §4.8.8.1: ca_repository must name a directory (end in \'/\')')
  else if (!repo && !mft && !(c.rpki_manifest.startsWith(c.ca_repository) && c.rpki_manifest.endsWith('.mft') && !c.rpki_manifest.slice(c.ca_repository.length).includes('/'))) {
    out.push('RFC 6487 §4.8.8.1: rpki_manifest must be a .mft file in the ca_repository directory')
  }
  if (c.rpki_notify !== undefined && c.rpki_notify !== null) {
    const p = uriProblem('rpki_notify', c.rpki_notify, 'https', 'RFC 8182 §3.2')
    if (p) out.push(p)
  }
  if (c.class_name !== undefined && c.class_name !== null && !/^[\x21-\x7e]{1,255}$/.test(c.class_name)) out.push('RFC 6492 §3.3.2: class_name must be 1 to 255 printable ASCII characters')
  return out
}

function keyProblems(b64: string): string[] {
  try {
    const info = readPublicKeyInfo(parseDer(fromBase64(b64)))
    // RFC 7935 §3 (via RFC 6485): a CA key is RSA with a 2048-bit modulus and public exponent 65537, nothing else.
    if (info.algorithm.oid !== rsaEncryption || !info.rsa) return ['RFC 7935 §3: issued_cert.key is not an RSA key']
    if (info.rsa.modulusBits !== 2048 || info.rsa.exponent !== 65537n) return [`RFC 7935 §3: issued_cert.key is an RSA key of ${info.rsa.modulusBits} bits, exponent ${info.rsa.exponent}; a CA key must be 2048 bits with exponent 65537`]
    return []
  } catch (e) {
    return [`RFC 5280 §4.1.2.7: issued_cert.key is not a base64 DER SubjectPublicKeyInfo (${e instanceof Error ? e.message : String(e)})`]
  }
}

function uriProblem(what: string, uri: string, scheme: 'rsync' | 'https', rule: string): string | undefined {
  const shown = uri.length > 100 ? `${JSON.stringify(uri.slice(0, 100))}…` : JSON.stringify(uri)
  if (uri.length > MAX_URI) return `${rule}: ${what} is ${uri.length} characters long, more than ${MAX_URI}`
  if (!/^[\x21-\x7e]*$/.test(uri)) return `RFC 3986 §2: ${what} ${shown} has a character that is not printable ASCII`
  if (!new RegExp(`^${scheme}://[^/]+/`).test(uri)) return `${rule}: ${what} ${shown} is not an ${scheme} URI with a host`
  if (uri.includes('/.')) return `RFC 3986 §3.3: ${what} ${shown} has a dot segment`
  return undefined
}
