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

function redact(url: URL): string {
  if (!url.password) return url.href
  const copy = new URL(url.href)
  copy.password = '***'
  return copy.href
}
