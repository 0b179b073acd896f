/**
 * Moving a delegated child between parents, in this svcd or between instances (Krill's child export and import,
 * krill-reference.md §1.1 "Children"; api/child-import.ts): the export reads what a new parent needs from the child's
 * current certificate; the import checks the body and runs one `child-import` command (ca/child-import.ts). Called by
 * ChildService (child-service.ts).
 *
 * The move, as the child's operator sees it: export at the old parent, import at the new one (which certifies the
 * child's current key again, so its objects are valid under both parents), add the new parent to the child from the
 * new parent's parent_response (the child gets a certificate for a key of a new class there, and publishes its ROAs
 * under both keys), then remove the old parent (the child asks both parents to revoke the old key first,
 * app/ca/parent-client.ts revokeAll, then withdraws its objects). At no step is a VRP of the child withdrawn before
 * another certificate holds it, once the operator waits for the new class's objects before removing the old parent.
 */
import { childImportProblems, type ImportChildJson } from '../../api/child-import.js'
import * as oids from '../../asn1/oids.js'
import type { CaCommand } from '../../ca/commands.js'
import type { CaState } from '../../ca/state.js'
import { AppError, reasonOf } from '../../errors.js'
import { decodeCert } from '../../objects/cert.js'
import { fromBase64, toBase64 } from '../../util/base64.js'
import { checkIdCert, childResources } from './inputs.js'

/**
 * The child as Krill exports it (ExportChild = ImportChild): its handle, identity certificate, resources, and its one
 * issued certificate as key and SIA. Refused while it holds no certificate or two (during its key roll), as Krill's.
 */
export function childExport(s: CaState, child: string): ImportChildJson {
  const ch = s.children[child]
  if (!ch) throw new AppError('ca-child-unknown', { ca: s.handle, child })
  const issued = Object.values(ch.issued)
  const refuse = (reason: string) => new AppError('ca-child-export-unsupported', { ca: s.handle, child, reason })
  if (issued.length === 0) throw refuse('it holds no certificate yet (it has not asked for one)')
  if (issued.length > 1) throw refuse(`it holds certificates for ${issued.length} keys (a key roll is in progress); export it after the roll`)
  const cert = decodeCert(fromBase64(issued[0]!.der))
  const sia = cert.extensions.sia ?? []
  const find = (m: string) => sia.find((a) => a.method === m)?.uri
  const notify = find(oids.idAdRpkiNotify)
  return {
    name: ch.handle,
    id_cert: ch.idCert,
    resources: ch.resources,
    // Krill names the class only when the child knows it by another name than the parent; svcd never maps names.
    issued_cert: { ca_repository: find(oids.idAdCaRepository) ?? '', rpki_manifest: find(oids.idAdRpkiManifest) ?? '', ...(notify ? { rpki_notify: notify } : {}), key: toBase64(cert.spki) },
  }
}

/**
 * The `child-import` command for an import body posted to …/children/{child}: the name must be the path's child
 * (Krill's ca-child-import-handle-mismatch); the key and SIA must fit (api/child-import.ts); the identity
 * certificate is inspected as of `now` as for a new child; the resources parse.
 */
export function childImportCommand(ca: string, child: string, body: ImportChildJson, now: Date): Extract<CaCommand, { type: 'child-import' }> {
  if (body.name !== child) throw new AppError('ca-child-import-handle-mismatch', { child, name: body.name })
  const problems = childImportProblems(body)
  if (problems.length) throw new AppError('ca-child-import-invalid', { ca, child, reason: problems.join('; ') })
  const idCert = checkIdCert(body.id_cert, now)
  const resources = childResources(child, body.resources)
  const c = body.issued_cert
  const sia = { caRepository: c.ca_repository, rpkiManifest: c.rpki_manifest, ...(c.rpki_notify ? { rpkiNotify: c.rpki_notify } : {}) }
  let key: string
  try {
    key = toBase64(fromBase64(c.key))
  } catch (e) {
    throw new AppError('ca-child-import-invalid', { ca, child, reason: reasonOf(e) })
  }
  return { type: 'child-import', handle: child, idCert, resources, key, sia, ...(c.class_name ? { className: c.class_name } : {}) }
}
