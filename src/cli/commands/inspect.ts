/**
 * `svcc inspect <file>`: decode an RPKI object (certificate, CRL, manifest, ROA, ASPA, Ghostbusters record, CSR), a
 * TAL or an RFC 8183 document offline (no server), print it, and list its profile problems with their RFC sections.
 * Exit 0 when it decodes and conforms, 1 when it decodes but breaks its profile, 2 when it cannot be decoded.
 */
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { idCtRpkiGhostbusters } from '../../asn1/oids.js'
import { decodeAspa, inspectAspa } from '../../objects/aspa.js'
import { decodeCert, inspectCert } from '../../objects/cert.js'
import { decodeCrl, inspectCrl } from '../../objects/crl.js'
import { decodeCsr, inspectCsr } from '../../objects/csr.js'
import { decodeManifest, inspectManifest } from '../../objects/manifest.js'
import { detectObjectType, type ObjectType } from '../../objects/object-type.js'
import { formatProblem, hasErrors, type Problem } from '../../objects/problem.js'
import { decodeRoa, inspectRoa } from '../../objects/roa.js'
import { decodeSignedObject, inspectSignedObject } from '../../objects/signed-object.js'
import { decodeTal, inspectTal } from '../../objects/tal.js'
import { detectIdExchange, type IdExchangeDocument } from '../../protocol/idexchange.js'
import { DecodeError, LibraryError } from '../../util/errors.js'
import type { CommandDef } from '../command.js'
import { type Report, UsageError } from '../report.js'
import {
  aspaView, certView, crlView, csrView, manifestView, roaView, signedObjectView, talView, type View,
} from './inspect-view.js'

export const inspectCommands: CommandDef[] = [
  {
    path: ['inspect'],
    summary: 'Decode an RPKI object, TAL or RFC 8183 document offline and list its profile problems (exit 0 ok, 1 problems, 2 undecodable)',
    args: '<file>',
    async run(_ctx, _opts, args) {
      return inspectFile(args[0])
    },
  },
]

/** Read and inspect one file. A file that cannot be read is a usage error (exit 2). */
export function inspectFile(path: string): Report {
  let bytes: Uint8Array
  try {
    bytes = new Uint8Array(readFileSync(path))
  } catch (e) {
    throw new UsageError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
  return inspectBytes(bytes, path)
}

/** Inspect bytes named `file`: the report and its exit code (0 conforms, 1 profile problems, 2 cannot decode). */
export function inspectBytes(bytes: Uint8Array, file: string): Report {
  const type = detectObjectType(bytes, file)
  let result: { view: View; problems: Problem[] }
  try {
    result = analyse(type, bytes)
  } catch (e) {
    // The edge of the CLI: a library error means the file could not be decoded.
    if (e instanceof LibraryError) return undecodable(file, type, e)
    throw e
  }
  const { view, problems } = result
  const conforms = !hasErrors(problems)
  const problemLines = problems.length === 0 ? ['Problems:        none'] : ['Problems:', ...problems.map((p) => `  ${p.severity.padEnd(6)}${formatProblem(p)}`)]
  const text = [`${'File:'.padEnd(17)}${file}`, ...view.lines, ...problemLines].join('\n')
  const json = { file, ...view.json, conforms, problems }
  return { text, json, exitCode: conforms ? 0 : 1 }
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

function analyse(type: ObjectType, bytes: Uint8Array): { view: View; problems: Problem[] } {
  switch (type) {
    case 'cert': {
      const c = decodeCert(bytes)
      return { view: certView(c), problems: inspectCert(c) }
    }
    case 'crl': {
      const c = decodeCrl(bytes)
      return { view: crlView(c), problems: inspectCrl(c) }
    }
    case 'manifest': {
      const m = decodeManifest(bytes)
      return { view: manifestView(m), problems: inspectManifest(m) }
    }
    case 'roa': {
      const r = decodeRoa(bytes)
      return { view: roaView(r), problems: inspectRoa(r) }
    }
    case 'aspa': {
      const a = decodeAspa(bytes)
      return { view: aspaView(a), problems: inspectAspa(a) }
    }
    default:
      return analyseOther(type, bytes)
  }
}

function analyseOther(type: ObjectType, bytes: Uint8Array): { view: View; problems: Problem[] } {
  switch (type) {
    case 'gbr':
    case 'signed-object': {
      const so = decodeSignedObject(bytes)
      const expected = type === 'gbr' ? idCtRpkiGhostbusters : undefined
      return { view: signedObjectView(so, type === 'gbr' ? 'Ghostbusters record (RFC 6493)' : 'signed object (RFC 6488)'), problems: inspectSignedObject(so, expected) }
    }
    case 'cms-xml':
      // The RFC 6492/8181 CMS profile is checked by svcd (protocol/signed-message.ts); here only the contents are shown.
      return { view: signedObjectView(decodeSignedObject(bytes), 'RFC 6492/8181 CMS message'), problems: [] }
    case 'csr': {
      const c = decodeCsr(bytes)
      return { view: csrView(c), problems: inspectCsr(c) }
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
function idExchange(d: IdExchangeDocument): { view: View; problems: Problem[] } {
  const fields: Record<string, string> = {}
  for (const [k, v] of Object.entries(d.doc)) if (typeof v === 'string') fields[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = v
  const cert = decodeCert(d.doc.idCert)
  const idView = certView(cert)
  const lines = [`${'Type:'.padEnd(17)}RFC 8183 ${d.type}`, ...Object.entries(fields).map(([k, v]) => `${(k + ':').padEnd(17)}${v}`)]
  lines.push('Identity certificate:', ...idView.lines.map((l) => `  ${l}`))
  const problems = inspectCert(cert, 'bpki-ca').map((p) => ({ ...p, message: `identity certificate: ${p.message}` }))
  return { view: { json: { type: d.type, ...fields, id_cert: idView.json }, lines }, problems }
}
