/**
 * Publishers of the publication server (RFC 8181, RFC 8183 §5.2.3/§5.2.4): the jail rule that every URI a
 * publisher sends must satisfy. Pure domain code; the store keeps the publishers, the manager applies the rules.
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
}

/** The rsync jail of a publisher (RFC 8183 §5.2.4 sia_base): base URI + handle + '/'. */
export function jailOf(rsyncBase: string, handle: string): string {
  return `${rsyncBase}${handle}/`
}

// A path segment inside a jail: printable ASCII file-name characters, no leading dot (so no '.', '..' or hidden
// files), at most 255 characters. RPKI object names (hex or base64url key ids, AS<n>.roa, UUIDs) all fit.
const SEGMENT = /^[A-Za-z0-9_~=+@-][A-Za-z0-9._~=+@-]{0,254}$/

/**
 * Why `uri` is not inside `jail`, or undefined when it is. The comparison is exact and case-sensitive, and the
 * relative part must be plain path segments: no '..' or '.', no percent-escapes, no empty segments, no trailing
 * '/', no backslashes or control characters (RFC 8181 §2: objects only below the publisher's base URI).
 */
export function jailProblem(uri: string, jail: string): string | undefined {
  if (!uri.startsWith(jail)) return `'${short(uri)}' is outside the publisher's jail '${jail}'`
  const rel = uri.slice(jail.length)
  if (rel === '') return `'${short(uri)}' names the jail itself, not an object`
  for (const segment of rel.split('/')) {
    if (!SEGMENT.test(segment)) return `'${short(uri)}' has a path segment that is not allowed: '${short(segment)}'`
  }
  return undefined
}

/** The path of a published object relative to the repository's rsync base (for the rsync tree on disk). */
export function relativePath(uri: string, rsyncBase: string): string {
  if (!uri.startsWith(rsyncBase)) throw new Error(`'${uri}' is not under '${rsyncBase}'`)
  return uri.slice(rsyncBase.length)
}

function short(s: string): string {
  return s.length > 200 ? s.slice(0, 197) + '...' : s
}
