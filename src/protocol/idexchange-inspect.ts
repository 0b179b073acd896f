/**
 * RFC 8183 documents as a profile, before svc acts on one (issue 10): its identity certificate passes inspectIdCert,
 * and every URI in it is one svc can use safely: sia_base an rsync directory URI (RFC 8183 §5.2.4, RFC 5781) with no
 * empty, '.' or '..' segment and no percent-encoding; service URIs http or https and the RRDP notification URI https,
 * with no dot segment in any spelling. Pure; throws InspectionError (or DecodeError) naming the rule. Used by app/api-inputs.ts.
 */
import { InspectionError } from '../util/errors.js'
import { parseUri, type UriParts } from '../util/uri.js'
import { inspectIdCert } from './id-cert.js'
import type { ChildRequest, ParentResponse, PublisherRequest, RepositoryResponse } from './idexchange.js'

/** RFC 8183 §5.2.1: a child request's identity certificate is one we can register. */
export function inspectChildRequest(r: ChildRequest, now: Date): ChildRequest {
  inspectIdCert(r.idCert, now)
  return r
}

/** RFC 8183 §5.2.3: a publisher request's identity certificate is one we can register. */
export function inspectPublisherRequest(r: PublisherRequest, now: Date): PublisherRequest {
  inspectIdCert(r.idCert, now)
  return r
}

/** RFC 8183 §5.2.2: the parent's identity certificate and its RFC 6492 service URI. */
export function inspectParentResponse(r: ParentResponse, now: Date): ParentResponse {
  inspectIdCert(r.idCert, now)
  inspectServiceUri(r.serviceUri, 'RFC 8183 §5.2.2', 'service_uri')
  return r
}

/** RFC 8183 §5.2.4: the repository's identity certificate, its RFC 8181 service URI, sia_base and RRDP URI. */
export function inspectRepositoryResponse(r: RepositoryResponse, now: Date): RepositoryResponse {
  inspectIdCert(r.idCert, now)
  inspectServiceUri(r.serviceUri, 'RFC 8183 §5.2.4', 'service_uri')
  inspectSiaBase(r.siaBase)
  if (r.rrdpNotificationUri !== undefined) inspectServiceUri(r.rrdpNotificationUri, 'RFC 8182 §3.1', 'rrdp_notification_uri', ['https'])
  return r
}

/**
 * RFC 8183 §5.2.4, RFC 5781: sia_base names the publisher's jail, a directory: `rsync://host[:port]/module/path/`.
 * Every URI the CA publishes and every certificate SIA starts with it, so it must mean exactly what it says: no
 * percent-encoding (a `%2e%2e` a server would decode), no empty, '.' or '..' segment.
 */
export function inspectSiaBase(uri: string): void {
  const rule = 'RFC 8183 §5.2.4'
  const p = parsed(uri, rule, 'sia_base')
  if (p.scheme !== 'rsync') throw bad(rule, 'sia_base', uri, 'is not an rsync:// URI (RFC 5781)')
  if (!uri.endsWith('/')) throw bad(rule, 'sia_base', uri, "must end with '/'")
  if (uri.includes('%')) throw bad(rule, 'sia_base', uri, 'must not contain percent-encoding')
  const segments = p.path.slice(1, -1).split('/')
  if (p.path.length < 2 || segments.some((s) => s === '' || s === '.' || s === '..')) throw bad(rule, 'sia_base', uri, "must be /module/path/ with no empty, '.' or '..' segment")
}

/**
 * An http(s) URI with a host and a path without dot segments, literal or percent-encoded (RFC 3986 §5.2.4). RFC 6492
 * and RFC 8181 service URIs may be http: every message is CMS-signed, and registries have served plain http (APNIC
 * until 2020); the RRDP notification must be https (RFC 8182 §3.1).
 */
function inspectServiceUri(uri: string, rule: string, what: string, schemes: readonly string[] = ['https', 'http']): void {
  const p = parsed(uri, rule, what)
  if (!schemes.includes(p.scheme)) throw bad(rule, what, uri, `must be an ${schemes.map((s) => `${s}://`).join(' or ')} URI`)
  const segments = p.path.split('/').slice(1)
  for (const [i, s] of segments.entries()) {
    let text: string
    try {
      text = decodeURIComponent(s)
    } catch {
      throw bad(rule, what, uri, 'contains a malformed percent-encoding')
    }
    if (text === '.' || text === '..' || /[\\\u0000-\u001f\u007f]/.test(text)) throw bad(rule, what, uri, "must not contain '.' or '..' segments or control characters")
    if (text === '' && i < segments.length - 1) throw bad(rule, what, uri, 'must not contain an empty path segment')
  }
}

/** The URI's parts, or an InspectionError under `rule` saying why it is not a URI svc accepts. */
function parsed(uri: string, rule: string, what: string): UriParts {
  try {
    return parseUri(uri)
  } catch (e) {
    throw new InspectionError(rule, `${what} ${JSON.stringify(uri)} is not a valid URI: ${(e as Error).message}`, { cause: e })
  }
}

/** An InspectionError naming the field, the (shortened) URI and the problem. */
function bad(rule: string, what: string, uri: string, problem: string): InspectionError {
  return new InspectionError(rule, `${what} ${JSON.stringify(uri.length > 200 ? uri.slice(0, 197) + '...' : uri)} ${problem}`)
}
