/**
 * What `svcc inspect` shows of each decoded object: a JSON view (snake_case, as svcc's other JSON) and text lines
 * (resources in the spec's text form, ISO times, URIs, manifest entries with hashes, ROA authorisations in the
 * `<prefix>/<len>[-<max>] => <asn>` form). Pure functions over the objects layer; used by inspect.ts.
 */
import * as oids from '../../asn1/oids.js'
import type { AsChoice, IpChoice } from '../../asn1/rfc3779.js'
import { keyIdentifier } from '../../crypto/key-id.js'
import { formatRoaPayload } from '../../resources/roa-payload.js'
import { toHex } from '../../util/hex.js'
import type { Aspa } from '../../objects/aspa.js'
import { type Cert, certRole } from '../../objects/cert.js'
import type { Crl } from '../../objects/crl.js'
import type { Csr } from '../../objects/csr.js'
import { formatName } from '../../objects/distinguished-name.js'
import type { Manifest } from '../../objects/manifest.js'
import type { Roa } from '../../objects/roa.js'
import type { Rsc, RscFileCheck } from '../../objects/rsc.js'
import type { SignedObject } from '../../objects/signed-object.js'
import type { Tal } from '../../objects/tal.js'

/** One object as JSON and as text lines. */
export interface View {
  json: Record<string, unknown>
  lines: string[]
}

const ROLE_NAMES = {
  ta: 'trust anchor certificate', ca: 'CA certificate', ee: 'EE certificate', router: 'BGPsec router certificate',
  'bpki-ca': 'BPKI CA (identity) certificate', 'bpki-ee': 'BPKI EE certificate',
} as const

const METHODS: ReadonlyMap<string, string> = new Map([
  [oids.idAdCaRepository, 'caRepository'], [oids.idAdRpkiManifest, 'rpkiManifest'], [oids.idAdSignedObject, 'signedObject'],
  [oids.idAdRpkiNotify, 'rpkiNotify'], [oids.idAdCaIssuers, 'caIssuers'],
])

/** ISO 8601 in UTC without milliseconds: 2026-01-01T00:00:00Z. */
export function iso(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

export function label(name: string, value: string): string {
  return `${(name + ':').padEnd(17)}${value}`
}

function choiceText(c: IpChoice | AsChoice | undefined): string {
  return c === undefined ? '' : c === 'inherit' ? 'inherit' : c.toString()
}

function keyText(cert: Cert | Csr | Tal): string {
  const k = cert.publicKey
  if (k.rsa !== undefined) return `RSA ${k.rsa.modulusBits} bits, exponent ${k.rsa.exponent}`
  if (k.curve !== undefined) return `EC ${oids.oidName(k.curve)}`
  return oids.oidName(k.algorithm.oid)
}

/** A certificate: names, validity, keys, resources, URIs. */
export function certView(cert: Cert): View {
  const x = cert.extensions
  const role = certRole(cert)
  const resources = { asn: choiceText(x.as?.asn), ipv4: choiceText(x.ip?.ipv4), ipv6: choiceText(x.ip?.ipv6) }
  const sia = (x.sia ?? []).map((a) => ({ method: METHODS.get(a.method) ?? a.method, uri: a.uri ?? '' }))
  const json = {
    type: 'certificate', role, serial: cert.serial.toString(), issuer: formatName(cert.issuer), subject: formatName(cert.subject),
    not_before: iso(cert.notBefore), not_after: iso(cert.notAfter), key: keyText(cert),
    ski: x.ski === undefined ? null : toHex(x.ski).toUpperCase(), aki: x.aki?.keyIdentifier === undefined ? null : toHex(x.aki.keyIdentifier).toUpperCase(),
    resources, crldp: x.crldp?.uris ?? [], aia: (x.aia ?? []).map((a) => a.uri ?? ''), sia,
  }
  const lines = [
    label('Type', ROLE_NAMES[role]), label('Serial', json.serial), label('Issuer', json.issuer), label('Subject', json.subject),
    label('Validity', `${json.not_before} to ${json.not_after}`), label('Key', json.key),
    label('SKI', json.ski ?? '(none)'), label('AKI', json.aki ?? '(none)'),
  ]
  if (x.ip !== undefined || x.as !== undefined) lines.push('Resources:', `  asn:  ${resources.asn}`, `  ipv4: ${resources.ipv4}`, `  ipv6: ${resources.ipv6}`)
  for (const u of json.crldp) lines.push(label('CRL', u))
  for (const u of json.aia) lines.push(label('CA issuer', u))
  if (sia.length > 0) lines.push('SIA:', ...sia.map((a) => `  ${(a.method + ':').padEnd(14)} ${a.uri}`))
  return { json, lines }
}

/** A CRL: issuer, times, number, revoked serials. */
export function crlView(crl: Crl): View {
  const json = {
    type: 'crl', issuer: formatName(crl.issuer), this_update: iso(crl.thisUpdate), next_update: crl.nextUpdate ? iso(crl.nextUpdate) : null,
    crl_number: crl.extensions.crlNumber?.value.toString() ?? null,
    aki: crl.extensions.aki?.keyIdentifier ? toHex(crl.extensions.aki.keyIdentifier).toUpperCase() : null,
    revoked: crl.revoked.map((r) => ({ serial: r.serial.toString(), date: iso(r.revocationDate) })),
  }
  const lines = [
    label('Type', 'CRL (RFC 6487 §5)'), label('Issuer', json.issuer), label('AKI', json.aki ?? '(none)'),
    label('CRL number', json.crl_number ?? '(none)'), label('This update', json.this_update), label('Next update', json.next_update ?? '(none)'),
    `Revoked (${json.revoked.length}):`, ...json.revoked.map((r) => `  ${r.serial}  ${r.date}`),
  ]
  return { json, lines }
}

/** The envelope facts every signed object shares, plus its EE certificate (indented). */
export function envelope(so: SignedObject): View {
  const ee = certView(so.ee)
  const st = so.attributes.signingTime
  const json = { content_type: oids.oidName(so.eContentType), encoding: so.encoding, signing_time: st ? iso(st) : null, ee_certificate: ee.json }
  const lines = [label('Content type', json.content_type), label('Encoding', so.encoding.toUpperCase()), label('Signing time', json.signing_time ?? '(none)')]
  return { json, lines: [...lines, 'EE certificate:', ...ee.lines.map((l) => `  ${l}`)] }
}

/** A manifest: number, times, and every file with its hash. */
export function manifestView(m: Manifest): View {
  const env = envelope(m.signedObject)
  const files = m.files.map((f) => ({ file: f.file, hash: toHex(f.hash) }))
  const json = {
    type: 'manifest', manifest_number: m.manifestNumber.toString(), this_update: iso(m.thisUpdate), next_update: iso(m.nextUpdate),
    file_hash_alg: oids.oidName(m.fileHashAlg), files, ...env.json,
  }
  const lines = [
    label('Type', 'manifest (RFC 9286)'), label('Manifest number', json.manifest_number), label('This update', json.this_update),
    label('Next update', json.next_update), label('Hash algorithm', json.file_hash_alg), `Files (${files.length}):`,
    ...files.map((f) => `  ${f.hash}  ${f.file}`), ...env.lines,
  ]
  return { json, lines }
}

/** A ROA: the AS and every authorisation in the spec's `=>` form. */
export function roaView(roa: Roa): View {
  const env = envelope(roa.signedObject)
  const authorisations = roa.payloads.map(formatRoaPayload)
  const json = { type: 'roa', asn: roa.asn, authorisations, ...env.json }
  const lines = [label('Type', 'ROA (RFC 9582)'), label('AS', `AS${roa.asn}`), `Authorisations (${authorisations.length}):`, ...authorisations.map((a) => `  ${a}`), ...env.lines]
  return { json, lines }
}

/** An ASPA: customer and providers. */
export function aspaView(a: Aspa): View {
  const env = envelope(a.signedObject)
  const json = { type: 'aspa', version: a.version, customer: a.customer, providers: a.providers, ...env.json }
  const lines = [
    label('Type', 'ASPA'), label('Customer', `AS${a.customer}`), label('Providers', a.providers.map((p) => `AS${p}`).join(', ')), ...env.lines,
  ]
  return { json, lines }
}

/** A signed checklist (RFC 9323): its resources and files; with `checks`, how each file compared. */
export function rscView(r: Rsc, checks?: readonly RscFileCheck[]): View {
  const env = envelope(r.signedObject)
  const res = r.resources.toJSON()
  const files = r.files.map((f, i) => ({ name: f.name ?? null, sha256: toHex(f.hash), ...(checks ? { state: checks[i]!.state } : {}) }))
  const json = { type: 'rsc', version: r.version, resources: res, digest_algorithm: oids.oidName(r.digestAlgorithm.oid), files, ...env.json }
  const lines = [
    label('Type', 'signed checklist (RFC 9323)'), 'Resources:', `  asn:  ${res.asn}`, `  ipv4: ${res.ipv4}`, `  ipv6: ${res.ipv6}`,
    label('Hash algorithm', json.digest_algorithm), `Files (${files.length}):`,
    ...files.map((f) => `  ${f.sha256}  ${f.name ?? '(no name)'}${f.state ? `  ${f.state}` : ''}`), ...env.lines,
  ]
  return { json, lines }
}

/** Any other signed object (Ghostbusters, RFC 6492/8181 CMS): the envelope and the content as text when it is text. */
export function signedObjectView(so: SignedObject, type: string): View {
  const env = envelope(so)
  const text = Buffer.from(so.eContent).toString('utf8')
  const printable = /^[\x09\x0a\x0d\x20-\x7e\u00a0-\uffff]*$/.test(text)
  const json = { type, content: printable ? text : toHex(so.eContent), ...env.json }
  const content = printable ? text.split(/\r?\n/).filter((l) => l !== '').map((l) => `  ${l}`) : [`  (${so.eContent.length} octets)`]
  return { json, lines: [label('Type', type), ...env.lines, 'Content:', ...content] }
}

/** A TAL: URIs, comments and the key. */
export function talView(tal: Tal): View {
  const json = { type: 'tal', uris: tal.uris, comments: tal.comments, key: keyText(tal), key_id: toHex(keyIdentifier(tal.spki)).toUpperCase() }
  const lines = [label('Type', 'TAL (RFC 8630)'), 'URIs:', ...tal.uris.map((u) => `  ${u}`), label('Key', json.key), label('Key id', json.key_id)]
  if (tal.comments.length > 0) lines.push('Comments:', ...tal.comments.map((c) => `  # ${c}`))
  return { json, lines }
}

/** A PKCS#10 request: subject, key, the SIA asked for. */
export function csrView(csr: Csr): View {
  const sia = (csr.extensions?.sia ?? []).map((a) => ({ method: METHODS.get(a.method) ?? a.method, uri: a.uri ?? '' }))
  const json = { type: 'csr', subject: formatName(csr.subject), key: keyText(csr), sia }
  const lines = [label('Type', 'certificate request (PKCS#10)'), label('Subject', json.subject), label('Key', json.key)]
  if (sia.length > 0) lines.push('SIA:', ...sia.map((a) => `  ${(a.method + ':').padEnd(14)} ${a.uri}`))
  return { json, lines }
}
