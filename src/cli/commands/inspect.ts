/**
 * `svcc inspect <file>`: decode an RPKI object (certificate, CRL, manifest, ROA, ASPA, Ghostbusters record, CSR), a
 * TAL or an RFC 8183 document offline (no server), print it, and list its profile problems with their RFC sections.
 * It also verifies what the file alone proves (objects/offline-checks.ts): a signed object's message digest and CMS
 * signature against its embedded EE certificate; with `--issuer <cert>`, the certificate, CRL or EE one step up the
 * chain; a manifest's file hashes when the listed files lie beside it; with `--dir <folder>`, the files a signed
 * checklist (RFC 9323) names, by their SHA-256.
 * Exit 0 when it decodes, conforms and verifies, 1 when it decodes but breaks its profile or a check, 2 when it cannot
 * be decoded.
 */
import { readFileSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { idCtRpkiGhostbusters } from '../../asn1/oids.js'
import { decodeAspa, inspectAspa } from '../../objects/aspa.js'
import { type Cert, decodeCert, inspectCert } from '../../objects/cert.js'
import { type Crl, decodeCrl, inspectCrl } from '../../objects/crl.js'
import { decodeCsr, inspectCsr } from '../../objects/csr.js'
import { decodeManifest, inspectManifest, type Manifest } from '../../objects/manifest.js'
import { detectObjectType, type ObjectType } from '../../objects/object-type.js'
import { formatProblem, hasErrors, type Problem } from '../../objects/problem.js'
import { decodeRoa, inspectRoa } from '../../objects/roa.js'
import { checkRscFiles, decodeRsc, inspectRsc, type Rsc, rscFileProblems, type RscFileCheck } from '../../objects/rsc.js'
import { decodeSignedObject, inspectSignedObject, type SignedObject } from '../../objects/signed-object.js'
import { decodeTal, inspectTal } from '../../objects/tal.js'
import { decodeTak, inspectTak } from '../../objects/tak.js'
import {
  checkCmsSignature, checkCrlIssuedBy, checkIssuedBy, checkManifestFiles, type OfflineCheck,
} from '../../objects/offline-checks.js'
import { detectIdExchange, type IdExchangeDocument } from '../../protocol/idexchange.js'
import { DecodeError, LibraryError } from '../../util/errors.js'
import { option, type CommandDef } from '../command.js'
import { type Report, UsageError } from '../report.js'
import {
  aspaView, certView, crlView, csrView, manifestView, roaView, rscView, signedObjectView, talView, type View,
} from './inspect-view.js'
import { takView } from './inspect-tak.js'

export const inspectCommands: CommandDef[] = [
  {
    path: ['inspect'],
    summary: 'Decode an RPKI object, TAL or RFC 8183 document offline, verify what it proves alone, and list its problems (exit 0 ok, 1 problems, 2 undecodable)',
    args: '<file>',
    options: [
      option('--issuer <cert>', "the issuer's certificate: verify the certificate, CRL or EE certificate one step up the chain"),
      option('--dir <folder>', 'for a signed checklist (RFC 9323 .sig): check the SHA-256 of the files it names in this folder'),
    ],
    async run(_ctx, opts, args) {
      return inspectFile(args[0], typeof opts.issuer === 'string' ? opts.issuer : undefined, typeof opts.dir === 'string' ? opts.dir : undefined)
    },
  },
]

/** Read and inspect one file (files beside it for a manifest). A file that cannot be read is a usage error (exit 2). */
export function inspectFile(path: string, issuerPath?: string, dirPath?: string): Report {
  const bytes = readOrUsage(path)
  if (dirPath !== undefined) checklistDir(bytes, path, dirPath)
  let issuer: Cert | undefined
  if (issuerPath !== undefined) {
    try {
      issuer = decodeCert(readOrUsage(issuerPath))
    } catch (e) {
      if (e instanceof LibraryError) throw new UsageError(`--issuer ${issuerPath}: not a certificate: ${e.message}`)
      throw e
    }
  }
  const dir = dirname(path)
  // RFC 9286 §4.2.2: listed names are plain file names, so join() cannot leave the manifest's directory.
  const beside = (name: string): Uint8Array | undefined => (/^[a-zA-Z0-9_-]+\.[a-z]{3}$/.test(name) ? tryRead(join(dir, name)) : undefined)
  // RFC 9323 §4.4: listed names are PortableFilenames (checkRscFiles takes no other), so join() stays in the folder.
  const checklist = dirPath === undefined ? undefined : (name: string) => tryRead(join(dirPath, name))
  return inspectBytes(bytes, path, { issuer, beside, ...(checklist ? { checklist } : {}) })
}

/** --dir applies to a signed checklist, and names a folder (else a usage error). */
function checklistDir(bytes: Uint8Array, path: string, dir: string): void {
  if (detectObjectType(bytes, path) !== 'rsc') throw new UsageError(`--dir: ${path} is not a signed checklist (RFC 9323)`)
  let isDir = false
  try {
    isDir = statSync(dir).isDirectory()
  } catch {
    isDir = false
  }
  if (!isDir) throw new UsageError(`--dir ${dir}: not a folder`)
}

function readOrUsage(path: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path))
  } catch (e) {
    throw new UsageError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
}

function tryRead(path: string): Uint8Array | undefined {
  try {
    return new Uint8Array(readFileSync(path))
  } catch {
    return undefined
  }
}

/** What the checks may use besides the bytes: the issuer's certificate, and the files beside the inspected one. */
export interface InspectContext {
  issuer?: Cert
  beside?: (file: string) => Uint8Array | undefined
  /** The files a signed checklist names (`--dir`). */
  checklist?: (file: string) => Uint8Array | undefined
}

/** Inspect bytes named `file`: the report and its exit code (0 conforms, 1 profile or check problems, 2 cannot decode). */
export function inspectBytes(bytes: Uint8Array, file: string, ctx: InspectContext = {}): Report {
  const type = detectObjectType(bytes, file)
  let result: Analysis
  try {
    result = analyse(type, bytes)
  } catch (e) {
    // The edge of the CLI: a library error means the file could not be decoded.
    if (e instanceof LibraryError) return undecodable(file, type, e)
    throw e
  }
  const fileChecks = result.rsc !== undefined && ctx.checklist !== undefined ? checkRscFiles(result.rsc, ctx.checklist) : undefined
  const view = fileChecks ? rscView(result.rsc!, fileChecks) : result.view
  const checks = offlineChecks(result, ctx, fileChecks)
  const problems = [...result.problems, ...checks.flatMap((c) => c.problems)]
  const conforms = !hasErrors(problems)
  const problemLines = problems.length === 0 ? ['Problems:        none'] : ['Problems:', ...problems.map((p) => `  ${p.severity.padEnd(6)}${formatProblem(p)}`)]
  const checkLines = checks.length === 0 ? [] : [`${'Verified:'.padEnd(17)}${checks.map((c) => `${CHECK_NAMES[c.check]} ${hasErrors(c.problems) ? 'FAILED' : 'ok'}`).join(', ')}`]
  const text = [`${'File:'.padEnd(17)}${file}`, ...view.lines, ...checkLines, ...problemLines].join('\n')
  const json = { file, ...view.json, conforms, checks: checks.map((c) => ({ check: c.check, ok: !hasErrors(c.problems) })), problems }
  return { text, json, exitCode: conforms ? 0 : 1 }
}

const CHECK_NAMES: Record<OfflineCheck['check'], string> = { 'cms-signature': 'CMS signature and digest', issuer: 'issuer', 'manifest-files': 'manifest file hashes', 'rsc-files': 'checklist file digests' }

/** The decoded object (for the checks), its view and its profile problems. */
interface Analysis {
  view: View
  problems: Problem[]
  cert?: Cert
  crl?: Crl
  signed?: SignedObject
  manifest?: Manifest
  rsc?: Rsc
}

/** The checks that apply to what was decoded and to what the context offers. */
function offlineChecks(a: Analysis, ctx: InspectContext, fileChecks?: readonly RscFileCheck[]): OfflineCheck[] {
  const out: OfflineCheck[] = []
  if (a.signed !== undefined) out.push({ check: 'cms-signature', problems: checkCmsSignature(a.signed) })
  if (ctx.issuer !== undefined) {
    const subject = a.signed?.ee ?? a.cert
    if (subject !== undefined) out.push({ check: 'issuer', problems: checkIssuedBy(subject, ctx.issuer) })
    else if (a.crl !== undefined) out.push({ check: 'issuer', problems: checkCrlIssuedBy(a.crl, ctx.issuer) })
  }
  if (a.manifest !== undefined && ctx.beside !== undefined) {
    const problems = checkManifestFiles(a.manifest, ctx.beside)
    if (problems !== undefined) out.push({ check: 'manifest-files', problems })
  }
  if (fileChecks !== undefined) out.push({ check: 'rsc-files', problems: rscFileProblems(fileChecks) })
  return out
}

function undecodable(file: string, type: ObjectType, e: LibraryError): Report {
  const message = e.rule === '' ? e.message : e.message.slice(e.rule.length + 2)
  const what = type === 'unknown' ? 'an RPKI object' : type
  return {
    text: `${basename(file)}: cannot decode as ${what}: ${e.rule === '' ? '' : `${e.rule}: `}${message}`,
    json: { file, type, conforms: false, error: { rule: e.rule, message } },
    exitCode: 2,
  }
}

function analyse(type: ObjectType, bytes: Uint8Array): Analysis {
  switch (type) {
    case 'cert': {
      const c = decodeCert(bytes)
      return { view: certView(c), problems: inspectCert(c), cert: c }
    }
    case 'crl': {
      const c = decodeCrl(bytes)
      return { view: crlView(c), problems: inspectCrl(c), crl: c }
    }
    case 'manifest': {
      const m = decodeManifest(bytes)
      return { view: manifestView(m), problems: inspectManifest(m), signed: m.signedObject, manifest: m }
    }
    case 'roa': {
      const r = decodeRoa(bytes)
      return { view: roaView(r), problems: inspectRoa(r), signed: r.signedObject }
    }
    case 'aspa': {
      const a = decodeAspa(bytes)
      return { view: aspaView(a), problems: inspectAspa(a), signed: a.signedObject }
    }
    case 'rsc': {
      const r = decodeRsc(bytes)
      return { view: rscView(r), problems: inspectRsc(r), signed: r.signedObject, rsc: r }
    }
    default:
      return analyseOther(type, bytes)
  }
}

function analyseOther(type: ObjectType, bytes: Uint8Array): Analysis {
  switch (type) {
    case 'gbr':
    case 'signed-object': {
      const so = decodeSignedObject(bytes)
      const expected = type === 'gbr' ? idCtRpkiGhostbusters : undefined
      return { view: signedObjectView(so, type === 'gbr' ? 'Ghostbusters record (RFC 6493)' : 'signed object (RFC 6488)'), problems: inspectSignedObject(so, expected), signed: so }
    }
    case 'cms-xml': {
      // The RFC 6492/8181 CMS profile is checked by svcd (protocol/signed-message.ts); here the contents and signature.
      const so = decodeSignedObject(bytes)
      return { view: signedObjectView(so, 'RFC 6492/8181 CMS message'), problems: [], signed: so }
    }
    case 'csr': {
      const c = decodeCsr(bytes)
      return { view: csrView(c), problems: inspectCsr(c) }
    }
    case 'tak': {
      const t = decodeTak(bytes)
      return { view: takView(t), problems: inspectTak(t), signed: t.signedObject }
    }
    case 'tal': {
      const t = decodeTal(bytes)
      return { view: talView(t), problems: inspectTal(t) }
    }
    case 'xml':
      return idExchange(detectIdExchange(bytes))
    default:
      throw new DecodeError('', 'not a certificate, CRL, signed object, CSR, TAL or RFC 8183 document')
  }
}

/** An RFC 8183 document: its fields, and its identity certificate decoded (RFC 8183 §4: a BPKI CA certificate). */
function idExchange(d: IdExchangeDocument): Analysis {
  const fields: Record<string, string> = {}
  for (const [k, v] of Object.entries(d.doc)) if (typeof v === 'string') fields[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = v
  const cert = decodeCert(d.doc.idCert)
  const idView = certView(cert)
  const lines = [`${'Type:'.padEnd(17)}RFC 8183 ${d.type}`, ...Object.entries(fields).map(([k, v]) => `${(k + ':').padEnd(17)}${v}`)]
  lines.push('Identity certificate:', ...idView.lines.map((l) => `  ${l}`))
  const problems = inspectCert(cert, 'bpki-ca').map((p) => ({ ...p, message: `identity certificate: ${p.message}` }))
  return { view: { json: { type: d.type, ...fields, id_cert: idView.json }, lines }, problems }
}
