/**
 * The objects of one publication point, one at a time, as a relying party reads them (issue 26 §1): each decodes with
 * the strict decoder of src/objects/ for its type and keeps its profile (the inspect verb, duplicate extensions
 * included), its CMS signature holds, its EE certificate's SIA signedObject is the URI it is published at, a CA
 * certificate's SIA points into a non-empty rsync module, and its name is one rpki-client accepts. Pure: findings only.
 * Used by point-check.ts.
 */
import * as oids from '../asn1/oids.js'
import { decodeAspa, inspectAspa } from '../objects/aspa.js'
import { type Cert, decodeCert, inspectCert } from '../objects/cert.js'
import { checkCmsSignature, checkIssuedBy } from '../objects/offline-checks.js'
import { errorsOf, type Problem } from '../objects/problem.js'
import { decodeRoa, inspectRoa } from '../objects/roa.js'
import { decodeSignedObject, inspectSignedObject, type SignedObject } from '../objects/signed-object.js'
import { LibraryError } from '../util/errors.js'
import type { Finding, Transport } from './model.js'
import { fileNameProblem, RULE_SIA_LOCATION, rsyncUriProblem } from './rpki-client-rules.js'

/** The findings of one published object that is not the manifest or the CRL (those are point-check.ts's). */
export function checkObject(uri: string, bytes: Uint8Array, transport: Transport, caCert: Cert | undefined): Finding[] {
  const out: Finding[] = []
  const name = uri.slice(uri.lastIndexOf('/') + 1)
  const nameProblem = fileNameProblem(name)
  if (nameProblem) out.push({ kind: 'invalid', transport, uri, ...nameProblem })
  const uriProblem = rsyncUriProblem(uri)
  if (uriProblem) out.push({ kind: 'invalid', transport, uri, ...uriProblem })
  const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase()
  try {
    if (ext === 'cer') out.push(...checkCaCert(uri, decodeCert(bytes), transport, caCert))
    else if (ext === 'roa') {
      const roa = decodeRoa(bytes)
      out.push(...signedObjectFindings(uri, roa.signedObject, inspectRoa(roa), transport, caCert))
    } else if (ext === 'asa') {
      const aspa = decodeAspa(bytes)
      out.push(...signedObjectFindings(uri, aspa.signedObject, inspectAspa(aspa), transport, caCert))
    } else if (ext === 'gbr') {
      const so = decodeSignedObject(bytes)
      out.push(...signedObjectFindings(uri, so, inspectSignedObject(so, oids.idCtRpkiGhostbusters), transport, caCert))
    }
  } catch (e) {
    if (!(e instanceof LibraryError)) throw e
    out.push(decodeFinding(uri, transport, e))
  }
  return out
}

/** A decoder's refusal as an `invalid` finding naming its rule. */
export function decodeFinding(uri: string, transport: Transport, e: LibraryError): Finding {
  return { kind: 'invalid', transport, uri, rule: e.rule || 'RFC 5280 §4.1', detail: e.rule ? e.message.slice(e.rule.length + 2) : e.message }
}

/** The error problems of the objects layer as `invalid` findings about `uri`. */
export function problemFindings(uri: string, transport: Transport, problems: readonly Problem[]): Finding[] {
  return errorsOf(problems).map((p) => ({ kind: 'invalid', transport, uri, rule: p.rule, detail: p.message }))
}

/**
 * A signed object: its profile, the CMS signature, the EE certificate against the CA (when known) and the EE's SIA
 * signedObject, which must be the URI the object is published at (RFC 9981 §4; rpki-client refuses others).
 */
export function signedObjectFindings(uri: string, so: SignedObject, profile: readonly Problem[], transport: Transport, caCert: Cert | undefined): Finding[] {
  const out = problemFindings(uri, transport, [...profile, ...checkCmsSignature(so)])
  if (caCert) out.push(...problemFindings(uri, transport, checkIssuedBy(so.ee, caCert)))
  const sia = so.ee.extensions.sia?.find((a) => a.method === oids.idAdSignedObject)?.uri
  if (sia !== undefined && sia !== uri) out.push({ kind: 'invalid', transport, uri, rule: RULE_SIA_LOCATION, detail: `the EE certificate names ${sia}, not the URI it is published at` })
  return out
}

/** A certificate published by the CA (a child's CA certificate, or a router certificate): profile, issuer, SIA. */
function checkCaCert(uri: string, cert: Cert, transport: Transport, caCert: Cert | undefined): Finding[] {
  const out = problemFindings(uri, transport, inspectCert(cert))
  if (caCert) out.push(...problemFindings(uri, transport, checkIssuedBy(cert, caCert)))
  for (const a of cert.extensions.sia ?? []) {
    if (a.uri === undefined || !a.uri.startsWith('rsync://')) continue
    const p = rsyncUriProblem(a.uri)
    if (p) out.push({ kind: 'invalid', transport, uri, rule: p.rule, detail: `SIA ${oids.oidName(a.method)}: ${p.detail}` })
  }
  return out
}
