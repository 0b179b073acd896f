/**
 * What a file proves on its own, or with its issuer's certificate beside it (`svcc inspect`, issue 12): the CMS
 * message digest and signature against the embedded EE certificate (RFC 6488 §3), one step of the certificate chain
 * (signature, names, AKI and RFC 3779 containment; not the validity window, which depends on when one looks), and a
 * manifest's file hashes against the files beside it (RFC 9286 §6.4–6.5). Every failure is a Problem naming its rule;
 * nothing throws for a bad object. Pure: the caller reads the files.
 */
import { AsBlocks } from '../resources/asn.js'
import { IpBlocks } from '../resources/ip.js'
import { ResourceSet } from '../resources/resource-set.js'
import { bytesEqual } from '../util/bytes.js'
import { LibraryError } from '../util/errors.js'
import { type Cert, type ResourceCert, signatureValid, trustedCert, verifyCert } from './cert.js'
import { type Crl, verifyCrl } from './crl.js'
import { checkManifestHashes, type Manifest } from './manifest.js'
import { note, type Problem, problem } from './problem.js'
import type { SignedObject } from './signed-object.js'
import { signedAttrsCandidates } from './signed-attributes.js'
import { sha256 } from '../crypto/digest.js'

/** One check that was run: what it covers and its problems (none: it passed). */
export interface OfflineCheck {
  readonly check: 'cms-signature' | 'issuer' | 'manifest-files' | 'rsc-files'
  readonly problems: readonly Problem[]
}

/**
 * RFC 6488 §2.1.6.4.2, §3 and RFC 5652 §5.4: the message-digest attribute equals the SHA-256 of the eContent, and
 * the signature over the DER signed attributes (tag 0x31) verifies with the key of the EE certificate the object
 * carries. A missing attribute is inspectSignedAttrs' problem; here it is only noted that nothing could be checked.
 */
export function checkCmsSignature(so: SignedObject): Problem[] {
  const out: Problem[] = []
  const digest = sha256(so.eContent)
  const md = so.attributes.messageDigest
  if (md === undefined) out.push(note('RFC 6488 §2.1.6.4.2', 'no message-digest attribute: the eContent cannot be checked'))
  else if (!bytesEqual(md, digest)) out.push(problem('RFC 6488 §2.1.6.4.2', 'message-digest attribute does not match the SHA-256 of the eContent'))
  const si = so.signerInfos[0]
  if (si?.signedAttrs === undefined) out.push(note('RFC 6488 §3', 'no signed attributes: the signature cannot be checked'))
  else if (!signedAttrsCandidates(si.signedAttrs).some((b) => signatureValid(so.ee.spki, b, si.signature))) {
    out.push(problem('RFC 6488 §3', 'CMS signature does not verify with the key of the embedded EE certificate'))
  }
  return out
}

/** The issuer certificate as a verifier: its own explicit resources; inherited families are taken as all (noted). */
export function issuerForCheck(issuer: Cert): { cert: ResourceCert; notes: Problem[] } {
  const x = issuer.extensions
  const notes: Problem[] = []
  const pick = <T>(v: T | 'inherit' | undefined, all: T, empty: T, what: string): T => {
    if (v !== 'inherit') return v ?? empty
    notes.push(note('RFC 3779 §2.2.3.5', `the issuer inherits its ${what} resources: containment in them is not checked`))
    return all
  }
  const all = ResourceSet.all()
  const resources = new ResourceSet(
    pick(x.as?.asn, all.asn, AsBlocks.empty(), 'AS'), pick(x.ip?.ipv4, all.ipv4, IpBlocks.empty(4), 'IPv4'), pick(x.ip?.ipv6, all.ipv6, IpBlocks.empty(6), 'IPv6'),
  )
  return { cert: trustedCert(issuer, resources), notes }
}

/**
 * One step of the chain (RFC 5280 §6.1.3, RFC 6487 §7.2): `cert` is signed by `issuer`'s key, names it, its AKI is
 * the issuer's SKI, and its resources lie within the issuer's. The time of the check is the certificate's own notBefore,
 * so an expired pair still proves its chain.
 */
export function checkIssuedBy(cert: Cert, issuer: Cert): Problem[] {
  const { cert: rc, notes } = issuerForCheck(issuer)
  return [...notes, ...asProblems(() => verifyCert(cert, rc, cert.notBefore, { profile: 'rpki' }))]
}

/** A CRL against its CA (RFC 6487 §5, RFC 5280 §6.3.3): issuer name, AKI and signature, as of its thisUpdate. */
export function checkCrlIssuedBy(crl: Crl, issuer: Cert): Problem[] {
  return asProblems(() => verifyCrl(crl, issuerForCheck(issuer).cert, crl.thisUpdate))
}

/** RFC 9286 §6.4–6.5 for the listed files that `read` finds; undefined when none of them is there (nothing to check). */
export function checkManifestFiles(m: Manifest, read: (file: string) => Uint8Array | undefined): Problem[] | undefined {
  const files = new Map(m.files.map((f) => [f.file, read(f.file)]))
  if (![...files.values()].some((b) => b !== undefined)) return undefined
  return checkManifestHashes(m, (f) => files.get(f))
}

function asProblems(fn: () => unknown): Problem[] {
  try {
    fn()
    return []
  } catch (e) {
    if (!(e instanceof LibraryError)) throw e
    const message = e.rule === '' ? e.message : e.message.slice(e.rule.length + 2)
    return [problem(e.rule, message)]
  }
}
