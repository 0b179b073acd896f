/**
 * A delegated child moved here from another parent (Krill's `ChildImport`, krill:src/daemon/ca/certauth.rs
 * process_child_import): the child is added with its identity certificate and resources, and its current key is
 * certified again at once, with the SIA it already publishes under, so its objects stay valid under this parent
 * before the child has even heard of us. Called by cert-auth.ts; the body is checked first by api/child-import.ts.
 */
import { keyIdentifier, keyIdHex } from '../crypto/key-id.js'
import { AppError, reasonOf } from '../errors.js'
import { decodeCert } from '../objects/cert.js'
import { ResourceSet } from '../resources/resource-set.js'
import { bytesEqual } from '../util/bytes.js'
import { fromBase64 } from '../util/base64.js'
import { checkChildResources, issueChildCertificate } from './children.js'
import type { CaCommand } from './commands.js'
import type { CaContext } from './context.js'
import type { CaEvent } from './events.js'
import type { CaState } from './state.js'

/**
 * Refused (nothing changes) when the child exists, its resources are empty or not held by us, we do not have exactly
 * one certified resource class (as Krill: the import names no class), the class name the child knows differs from
 * ours (svcd does not map class names), our certificate expired, or the key is ours, another child's or the child's
 * identity key. The private key never travels: whoever holds it can use the certificate, nobody else.
 */
export function processChildImport(s: CaState, c: Extract<CaCommand, { type: 'child-import' }>, ctx: CaContext): CaEvent[] {
  const refuse = (reason: string) => new AppError('ca-child-import-invalid', { ca: s.handle, child: c.handle, reason })
  if (s.children[c.handle]) throw new AppError('ca-child-duplicate', { ca: s.handle, child: c.handle })
  const resources = checkChildResources(s, c.handle, c.resources)
  const classes = Object.values(s.classes).filter((rc) => rc.current?.cert)
  if (classes.length !== 1) throw refuse(`an import needs a parent with exactly one certified resource class (as Krill), this CA has ${classes.length}`)
  const rc = classes[0]!
  if (c.className !== undefined && c.className !== rc.name) throw refuse(`the child knows its certificate in class '${c.className}', ours is '${rc.name}' (svcd does not map class names)`)
  // RFC 6487 §7.2: a certificate issued under our expired one would be invalid.
  if (Date.parse(rc.current!.cert!.notAfter) <= ctx.now.getTime()) throw refuse(`our certificate in resource class '${rc.name}' expired at ${rc.current!.cert!.notAfter}`)
  const spki = fromBase64(c.key)
  const keyId = keyIdHex(keyIdentifier(spki))
  if (Object.values(s.classes).some((k) => [k.current, k.next, k.old].some((x) => x?.keyId === keyId))) throw refuse('the key is a key of this CA')
  const other = Object.values(s.children).find((ch) => ch.issued[keyId])
  if (other) throw refuse(`the key is already certified for child '${other.handle}'`)
  if (bytesEqual(identityKey(c.idCert), spki)) throw refuse("the key is the child's identity key (RFC 8183 §4: a BPKI key is never a resource key)")
  const entitled = ResourceSet.parse(resources).intersection(ResourceSet.parse(rc.current!.cert!.resources))
  const cert = issueChildCertificate(s, rc, spki, c.sia, entitled, ctx)
  return [{ type: 'child-added', handle: c.handle, idCert: c.idCert, resources }, { type: 'child-certificate-issued', child: c.handle, cert }]
}

/** The SubjectPublicKeyInfo of the child's identity certificate (already inspected by the service). */
function identityKey(idCert: string): Uint8Array {
  try {
    return decodeCert(fromBase64(idCert)).spki
  } catch (e) {
    throw new AppError('ca-child-request-invalid-xml', { reason: `id_cert: ${reasonOf(e)}` })
  }
}
