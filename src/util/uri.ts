/**
 * rsync and https URIs as RPKI uses them (RFC 6487 §4.8, RFC 8182, RFC 8183). Parsed strictly: scheme, host,
 * optional port, path; no user info, query or fragment. Branded types keep the two schemes apart.
 */
import { ParseError } from './errors.js'

export type RsyncUri = string & { readonly kind: 'RsyncUri' }
export type HttpsUri = string & { readonly kind: 'HttpsUri' }

export interface UriParts {
  scheme: 'rsync' | 'https' | 'http'
  host: string
  port: number | undefined
  /** Path after the authority, always starting with `/` (or empty for `https://host`). */
  path: string
}

const AUTHORITY = /^(?<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(?<port>[0-9]{1,5}))?$/
const PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/

/** Split a URI into parts, or throw a ParseError that says what is wrong. */
export function parseUri(text: string): UriParts {
  if (typeof text !== 'string') throw new ParseError('RFC 3986', 'URI is not a string')
  const m = /^(?<scheme>[A-Za-z][A-Za-z0-9+.-]*):\/\/(?<rest>.*)$/s.exec(text)
  if (!m?.groups) throw new ParseError('RFC 3986', `${short(text)} is not an absolute URI`)
  const scheme = m.groups.scheme
  if (scheme !== 'rsync' && scheme !== 'https' && scheme !== 'http') {
    throw new ParseError('RFC 3986', `${short(text)} has the unsupported scheme '${scheme}'`)
  }
  const rest = m.groups.rest
  const slash = rest.indexOf('/')
  const authority = slash === -1 ? rest : rest.slice(0, slash)
  const path = slash === -1 ? '' : rest.slice(slash)
  const a = AUTHORITY.exec(authority)
  if (!a?.groups) throw new ParseError('RFC 3986', `${short(text)} has an invalid host '${authority}'`)
  const port = a.groups.port === undefined ? undefined : Number(a.groups.port)
  if (port !== undefined && (port < 1 || port > 65535)) throw new ParseError('RFC 3986', `${short(text)} has an invalid port`)
  if (!PATH_CHARS.test(path)) throw new ParseError('RFC 3986', `${short(text)} contains characters not allowed in a URI path`)
  if (/[?#]/.test(path)) throw new ParseError('RFC 3986', `${short(text)} must not have a query or fragment`)
  return { scheme, host: a.groups.host, port, path }
}

/** An rsync URI (RFC 5781); with `dir`, it must end in `/`. */
export function rsyncUri(text: string, opts: { dir?: boolean } = {}): RsyncUri {
  const p = parseUri(text)
  if (p.scheme !== 'rsync') throw new ParseError('RFC 5781', `${short(text)} is not an rsync:// URI`)
  if (!p.path.startsWith('/') || p.path.length < 2) throw new ParseError('RFC 5781', `${short(text)} has no module`)
  if (opts.dir && !text.endsWith('/')) throw new ParseError('RFC 8183 §5.2.4', `${short(text)} must end with '/'`)
  return text as RsyncUri
}

/** An https URI; with `dir`, it must end in `/`. `allowHttp` admits http:// (some RFC 6492 peers use it). */
export function httpsUri(text: string, opts: { dir?: boolean; allowHttp?: boolean } = {}): HttpsUri {
  const p = parseUri(text)
  if (p.scheme !== 'https' && !(opts.allowHttp && p.scheme === 'http')) {
    throw new ParseError('RFC 8182 §3.1', `${short(text)} is not an https:// URI`)
  }
  if (opts.dir && !text.endsWith('/')) throw new ParseError('RFC 8182 §3.1', `${short(text)} must end with '/'`)
  return text as HttpsUri
}

/** The rsync module URI (`rsync://host[:port]/module/`) that contains the given rsync URI. */
export function rsyncModule(uri: RsyncUri): { host: string; port: number | undefined; module: string } {
  const p = parseUri(uri)
  const module = p.path.split('/')[1]
  return { host: p.host, port: p.port, module }
}

function short(text: string): string {
  return JSON.stringify(text.length > 120 ? text.slice(0, 117) + '...' : text)
}

/**
 * A URL host that names this machine (RFC 6761 §6.3 localhost and its subdomains, 127.0.0.0/8, [::1]): a self-signed
 * TLS certificate is accepted only from such a peer (svcc, RFC 6492/8181 clients, the liveness fetcher, webhooks),
 * and a webhook may use plain http only to one.
 */
export function isLoopbackHost(hostname: string): boolean {
  return /^(localhost|[^.]+\.localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i.test(hostname)
}
