/**
 * Signed checklists a CA signs for its operator (RFC 9323): the checks of a request (file names and SHA-256 digests,
 * resources held under one current key, `ca-rsc-*` labels; when one fails nothing is signed), the key that signs it,
 * and the history entry. Only digests reach the CA; the files stay with the operator. Signing leaves the CA state as
 * it is: the `rsc-signed` event only records what was signed (file names, resources, EE serial), never the digests.
 */
import { AppError, reasonOf } from '../errors.js'
import { PORTABLE_FILENAME } from '../objects/rsc.js'
import { ResourceSet, type ResourceSetText } from '../resources/resource-set.js'
import { certificateExpired } from './renewal.js'
import type { CaState, IncomingCert } from './state.js'

/** What the operator asks for: files (name, hex SHA-256), resources (default: all the signing key holds), validity. */
export interface RscRequest {
  files: readonly { name: string; sha256: string }[]
  resources?: Partial<ResourceSetText>
  /** Default RSC_DEFAULT_VALIDITY_DAYS. */
  validityDays?: number
}

/** The signing decided: the class and current key, its certificate, the resources of the checklist, the validity. */
export interface RscPlan {
  className: string
  keyId: string
  cert: IncomingCert
  resources: ResourceSet
  notBefore: Date
  notAfter: Date
}

/** Stored in the history (inside the rsc-sign command): changing this shape needs a migration. */
export interface RscSignCommand {
  type: 'rsc-sign'
  files: string[]
  resources: ResourceSetText
  className: string
  keyId: string
  serial: string
  notAfter: string
}

/** Stored in the history: changing this shape needs a migration. It changes no state. */
export interface RscEvent {
  type: 'rsc-signed'
  files: string[]
  resources: ResourceSetText
  keyId: string
  serial: string
  notAfter: string
}

/** The EE certificate's validity unless the request says otherwise (within the CA certificate's). */
export const RSC_DEFAULT_VALIDITY_DAYS = 365

/** At most this many files in one checklist (rpki-client refuses more than 100,000 entries). */
export const RSC_MAX_FILES = 10_000
const MAX_NAME = 255

/** Check a request against the CA and decide who signs what (throws the labelled refusals). */
export function planRsc(s: CaState, req: RscRequest, now: Date): RscPlan {
  checkFiles(s.handle, req.files)
  let wanted: ResourceSet | undefined
  if (req.resources !== undefined) {
    try {
      wanted = ResourceSet.parse(req.resources)
    } catch (e) {
      throw new AppError('ca-rsc-resources-invalid', { ca: s.handle, reason: reasonOf(e) })
    }
    if (wanted.isEmpty()) throw new AppError('ca-rsc-resources-invalid', { ca: s.handle, reason: 'no resources given: a checklist is signed with at least one AS number or prefix (RFC 9323 §4.2)' })
  }
  const keys = Object.values(s.classes).flatMap((rc) => (rc.current?.cert && !certificateExpired(rc.current.cert, now) ? [{ className: rc.name, keyId: rc.current.keyId, cert: rc.current.cert }] : []))
  if (keys.length === 0 || !s.repo) throw new AppError('ca-rsc-no-certificate', { ca: s.handle })
  const key = wanted === undefined ? (keys.length === 1 ? keys[0] : undefined) : keys.find((k) => ResourceSet.parse(k.cert.resources).contains(wanted!))
  if (key === undefined) {
    const held = keys.reduce((a, k) => a.union(ResourceSet.parse(k.cert.resources)), ResourceSet.empty())
    const asked = wanted ?? held
    if (!held.contains(asked)) throw new AppError('ca-rsc-not-entitled', { ca: s.handle, resources: text(asked.difference(held)) })
    throw new AppError('ca-rsc-resources-split', { ca: s.handle, resources: text(asked) })
  }
  const resources = wanted ?? ResourceSet.parse(key.cert.resources)
  // The one-off EE certificate is valid from five minutes back (peers' clocks) for the days asked, within the CA's.
  const notBefore = new Date(Math.floor(now.getTime() / 1000) * 1000 - 5 * 60_000)
  const notAfter = new Date(Math.min(now.getTime() + (req.validityDays ?? RSC_DEFAULT_VALIDITY_DAYS) * 86_400_000, Date.parse(key.cert.notAfter)))
  return { ...key, resources, notBefore, notAfter }
}

/** RFC 9323 §4.4: one or more files, each a PortableFilename (once) with a SHA-256 digest in hex. */
function checkFiles(ca: string, files: RscRequest['files']): void {
  if (files.length === 0) throw new AppError('ca-rsc-checklist-empty', { ca })
  if (files.length > RSC_MAX_FILES) throw new AppError('ca-rsc-file-invalid', { ca, file: files[RSC_MAX_FILES]!.name, reason: `at most ${RSC_MAX_FILES} files in one checklist` })
  const seen = new Set<string>()
  for (const f of files) {
    const bad = (reason: string) => new AppError('ca-rsc-file-invalid', { ca, file: f.name, reason })
    if (!PORTABLE_FILENAME.test(f.name) || f.name.length > MAX_NAME) throw bad(`not a portable file name: 1 to ${MAX_NAME} of a-z, A-Z, 0-9, '.', '_' and '-' (RFC 9323 §4.4)`)
    if (f.name === '.' || f.name === '..') throw bad('not the name of a file')
    if (!/^[0-9a-fA-F]{64}$/.test(f.sha256)) throw bad('the SHA-256 digest is not 64 hex digits')
    if (seen.has(f.name)) throw bad('listed more than once')
    seen.add(f.name)
  }
}

/** The history entry: the key that signed must still be the current certified one holding the resources. */
export function processRscSign(s: CaState, c: RscSignCommand): RscEvent[] {
  const rc = s.classes[c.className]
  const cert = rc?.current?.keyId === c.keyId ? rc.current.cert : undefined
  if (!cert) throw new AppError('ca-rsc-no-certificate', { ca: s.handle })
  const resources = ResourceSet.parse(c.resources)
  if (!ResourceSet.parse(cert.resources).contains(resources)) throw new AppError('ca-rsc-not-entitled', { ca: s.handle, resources: text(resources.difference(ResourceSet.parse(cert.resources))) })
  return [{ type: 'rsc-signed', files: [...c.files], resources: c.resources, keyId: c.keyId, serial: c.serial, notAfter: c.notAfter }]
}

/** 'asn: AS65000, ipv4: 10.0.0.0/24' (the families that are not empty). */
function text(r: ResourceSet | ResourceSetText): string {
  const t = r instanceof ResourceSet ? r.toJSON() : r
  return [t.asn && `asn: ${t.asn}`, t.ipv4 && `ipv4: ${t.ipv4}`, t.ipv6 && `ipv6: ${t.ipv6}`].filter(Boolean).join(', ') || 'none'
}

/** A list of file names for the history, shortened after ten. */
function fileList(files: readonly string[]): string {
  return files.length <= 10 ? files.join(', ') : `${files.slice(0, 10).join(', ')} and ${files.length - 10} more`
}

/** The history line of the command (krill-reference.md §4 style: `cmd-ca-rsc-sign`). */
export function rscSignSummary(c: RscSignCommand): { label: string; msg: string; args: Record<string, string> } {
  return { label: 'cmd-ca-rsc-sign', msg: `Sign a checklist of ${c.files.length} file${c.files.length === 1 ? '' : 's'} (${fileList(c.files)}) with resources '${text(c.resources)}'`, args: { files: String(c.files.length), resources: text(c.resources) } }
}

/** A one-line description of the event, for `svcc action`. */
export function rscEventSummary(e: RscEvent): string {
  return `signed a checklist of ${fileList(e.files)} with ${text(e.resources)} under key ${e.keyId}: EE serial ${e.serial}, valid until ${e.notAfter}`
}
