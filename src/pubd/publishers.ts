/**
 * Publishers of the publication server (RFC 8181, RFC 8183 §5.2.3/§5.2.4): the jail rule that every URI a
 * publisher sends must satisfy. Pure domain code; the store keeps the publishers, the publication service applies the rules.
 */

/** Stored in the database: changing this shape needs a migration. */
export interface Publisher {
  handle: string
  /** The publisher's BPKI identity certificate (DER), from its publisher_request. */
  idCert: Uint8Array
  /** The rsync jail: `<rsync_base_uri><handle>/`. */
  baseUri: string
  /** ISO 8601 time of registration. */
  created: string
  /** ISO 8601 time of the last accepted publish or withdraw, if any. */
  lastPublish?: string
  /** Registered anonymously through the testbed self-service (/testbed/publishers): its tighter quota applies. */
  selfService?: true
}

/** The rsync jail of a publisher (RFC 8183 §5.2.4 sia_base): base URI + handle + '/'. */
export function jailOf(rsyncBase: string, handle: string): string {
  return `${rsyncBase}${handle}/`
}

// A path segment inside a jail: printable ASCII file-name characters, no leading dot (so no '.', '..' or hidden
// files). RPKI object names (hex or base64url key ids, AS<n>.roa, UUIDs) all fit.
const SEGMENT = /^[A-Za-z0-9_~=+@-][A-Za-z0-9._~=+@-]*$/

/** NAME_MAX of Linux and the BSDs: a file or directory name of the rsync tree is at most 255 bytes. */
export const MAX_SEGMENT_BYTES = 255

/**
 * The longest URI relying parties accept: rpki-client refuses any URI longer than MAX_URI_LENGTH (2048 bytes,
 * rpki-client extern.h; valid_uri() in validate.c), so a longer one could never be validated, and within it the
 * rsync tree's paths stay far below PATH_MAX (4096).
 */
export const MAX_URI_BYTES = 2048

/**
 * Why `uri` is not an object URI the publisher may use in `jail`, or undefined when it may. The comparison is exact
 * and case-sensitive, and the relative part must be plain path segments that the rsync tree, RRDP and relying
 * parties can all hold: no '..' or '.', no percent-escapes, no empty segments, no trailing '/', no backslashes or
 * control characters, no segment longer than 255 bytes, no URI longer than 2048 bytes (RFC 8181 §2: objects only
 * below the publisher's base URI; RFC 8181 §2.5 permission_failure for everything else).
 */
export function jailProblem(uri: string, jail: string): string | undefined {
  if (!uri.startsWith(jail)) return `'${short(uri)}' is outside the publisher's jail '${jail}'`
  const rel = uri.slice(jail.length)
  if (rel === '') return `'${short(uri)}' names the jail itself, not an object`
  for (const segment of rel.split('/')) {
    if (!SEGMENT.test(segment)) return `'${short(uri)}' has a path segment that is not allowed: '${short(segment)}'`
    if (utf8Bytes(segment) > MAX_SEGMENT_BYTES) return `'${short(uri)}' has a path segment longer than ${MAX_SEGMENT_BYTES} bytes (NAME_MAX): '${short(segment)}'`
  }
  const bytes = utf8Bytes(uri)
  if (bytes > MAX_URI_BYTES) return `'${short(uri)}' is ${bytes} bytes long, more than the ${MAX_URI_BYTES} relying parties accept (rpki-client MAX_URI_LENGTH)`
  return undefined
}

/** The path of a published object relative to the repository's rsync base (for the rsync tree on disk). */
export function relativePath(uri: string, rsyncBase: string): string {
  if (!uri.startsWith(rsyncBase)) throw new Error(`'${uri}' is not under '${rsyncBase}'`)
  return uri.slice(rsyncBase.length)
}

function utf8Bytes(s: string): number {
  return new TextEncoder().encode(s).length
}

function short(s: string): string {
  return s.length > 200 ? s.slice(0, 197) + '...' : s
}
