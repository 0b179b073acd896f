/**
 * `storage_uri` (config/svcd.toml, `svcd migrate --from/--to`): where svcd keeps its state. Unset, empty or
 * `sqlite://` is the embedded SQLite database <data_dir>/svcd.db; `sqlite://<file>` another file (a relative path is
 * relative to the data directory); `postgresql://user[:password]@host[:port]/database[?…]` (or `postgres://`) a
 * PostgreSQL database, with the query parameters libpq and pg know (sslmode, host=/run/postgresql for a socket, …).
 */

export type StorageTarget =
  | { kind: 'sqlite'; /** The file, as written (undefined: the default). */ path: string | undefined; display: string }
  | { kind: 'postgres'; uri: string; /** The URI without its password, for logs and errors. */ display: string }

const FORMS = 'sqlite://<file> or postgresql://<user>@<host>[:<port>]/<database>'

/** Parse a storage URI; throws an Error saying what is wrong and which forms are understood. */
export function parseStorageUri(text: string | undefined): StorageTarget {
  if (text === undefined || text === '' || text === 'sqlite://') return { kind: 'sqlite', path: undefined, display: 'sqlite://' }
  if (text.startsWith('sqlite://')) return { kind: 'sqlite', path: text.slice('sqlite://'.length), display: text }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(text)?.[1]?.toLowerCase()
  if (scheme !== 'postgresql' && scheme !== 'postgres') {
    throw new Error(scheme ? `storage URI scheme '${scheme}' is not supported: use ${FORMS}` : `storage URI has no scheme: use ${FORMS}`)
  }
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new Error(`storage URI is not a valid URI: use ${FORMS}`)
  }
  const display = redact(url)
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''))
  if (!database || database.includes('/')) throw new Error(`storage URI '${display}' names no database: use ${FORMS}`)
  if (!url.hostname && !url.searchParams.get('host')) throw new Error(`storage URI '${display}' names no host: use ${FORMS} (or ?host=<socket directory>)`)
  if (url.port && !(Number(url.port) >= 1 && Number(url.port) <= 65535)) throw new Error(`storage URI '${display}' has a bad port`)
  return { kind: 'postgres', uri: text, display }
}

/** Query parameters that carry a secret (libpq: password, sslpassword; any other `…password…` too). */
const SECRET_PARAM = /password/i

/** The URI for logs and errors: the password of the userinfo and of the query (`?password=…`) replaced by `***`. */
function redact(url: URL): string {
  const secrets = [...url.searchParams.keys()].filter((k) => SECRET_PARAM.test(k))
  if (!url.password && !secrets.length) return url.href
  const copy = new URL(url.href)
  if (copy.password) copy.password = '***'
  if (secrets.length) {
    // Rebuilt by hand: URLSearchParams would re-encode the other parameters.
    copy.search = url.search.slice(1).split('&').map((kv) => {
      const name = kv.split('=')[0]!
      return SECRET_PARAM.test(safeDecode(name)) ? `${name}=***` : kv
    }).join('&')
  }
  return copy.href
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '))
  } catch {
    return s
  }
}
