/**
 * The rules the newest rpki-client enforces beyond the RFC profiles that src/objects/ checks (issue 26 §1): file
 * names (rpki-client valid_filename and valid_mft_filename: the POSIX portable set, exactly one dot, no dot-files, at
 * most NAME_MAX), rsync URIs (valid_uri: a module, no dot segments, no empty segments, at most MAX_URI_LENGTH), and
 * the manifest number's progress between two fetches (parser.c: a decrease, a reuse, a gap). Pure; the rule names
 * are the `rule` of the findings point-check.ts reports. Facts read from rpki-client's source, no code taken.
 */

export const RULE_ONE_CRL = 'rpki-client: exactly one CRL on the manifest'
export const RULE_CRL_NAME = 'rpki-client: the CRL on the manifest is the one the EE certificate names (CRLDP)'
export const RULE_FILE_NAME = 'rpki-client: file names from [A-Za-z0-9._-] with one dot before the extension'
export const RULE_NAME_LENGTH = 'rpki-client: file names of at most 255 characters (NAME_MAX)'
export const RULE_DOT_FILE = 'rpki-client: no dot-files'
export const RULE_URI = 'rpki-client: rsync URIs inside a non-empty module, without dot or empty segments'
export const RULE_SIA_LOCATION = 'RFC 9981 §4 / rpki-client: the EE certificate\'s SIA signedObject is where the object is published'
export const RULE_NUMBER_DECREASE = 'rpki-client: manifest number decreased'
export const RULE_NUMBER_REUSED = 'rpki-client: manifest number reused for other content'
export const RULE_NUMBER_GAP = 'rpki-client: manifest number gap'

/** NAME_MAX of the file systems rpki-client writes its cache to. */
export const MAX_NAME_LENGTH = 255
/** rpki-client's MAX_URI_LENGTH. */
export const MAX_URI_LENGTH = 2048

/** What is wrong with a file name as rpki-client reads a manifest entry or a published file; undefined when nothing. */
export function fileNameProblem(name: string): { rule: string; detail: string } | undefined {
  const shown = name.length > 60 ? `${JSON.stringify(name.slice(0, 57))}… (${name.length} characters)` : JSON.stringify(name)
  if (name.length > MAX_NAME_LENGTH) return { rule: RULE_NAME_LENGTH, detail: `file name ${shown} is longer than ${MAX_NAME_LENGTH} characters` }
  if (name.startsWith('.')) return { rule: RULE_DOT_FILE, detail: `file name ${shown} starts with a dot` }
  if (!/^[A-Za-z0-9._-]+$/.test(name)) return { rule: RULE_FILE_NAME, detail: `file name ${shown} has characters outside [A-Za-z0-9._-]` }
  const dot = name.indexOf('.')
  if (dot === -1 || dot !== name.lastIndexOf('.') || dot === name.length - 1) return { rule: RULE_FILE_NAME, detail: `file name ${shown} does not have exactly one dot before an extension` }
  return undefined
}

/** What is wrong with an rsync URI as rpki-client's valid_uri reads it; undefined when nothing. */
export function rsyncUriProblem(uri: string): { rule: string; detail: string } | undefined {
  const shown = uri.length > 100 ? `${JSON.stringify(uri.slice(0, 97))}…` : JSON.stringify(uri)
  if (uri.length > MAX_URI_LENGTH) return { rule: RULE_URI, detail: `URI ${shown} is longer than ${MAX_URI_LENGTH} characters` }
  if (!/^[\x21-\x7e]+$/.test(uri)) return { rule: RULE_URI, detail: `URI ${shown} has characters that are not printable ASCII` }
  const m = /^rsync:\/\/([^/]+)\/(.*)$/i.exec(uri)
  if (!m) return { rule: RULE_URI, detail: `URI ${shown} is not an rsync URI with a host` }
  const segments = m[2].split('/')
  if (segments[0] === '') return { rule: RULE_URI, detail: `URI ${shown} has an empty module` }
  // valid_uri: no "/." anywhere (neither dot segments nor dot-files); empty segments ("//") neither.
  if (uri.includes('/.')) return { rule: RULE_URI, detail: `URI ${shown} has a segment starting with a dot` }
  if (segments.slice(0, -1).some((s) => s === '')) return { rule: RULE_URI, detail: `URI ${shown} has an empty segment` }
  return undefined
}

/**
 * The manifest number against the one seen before (rpki-client parser.c, proc_parser_mft_pre): lower is refused, the
 * same number with other bytes is a misissuance, more than one higher is a gap (rpki-client warns and counts it).
 * Numbers are decimal strings; hashes SHA-256 hex of the manifest files.
 */
export function manifestNumberProblem(number: bigint, hash: string, previous: string, previousHash?: string): { rule: string; detail: string } | undefined {
  if (!/^[0-9]{1,60}$/.test(previous)) return undefined
  const prev = BigInt(previous)
  if (number < prev) return { rule: RULE_NUMBER_DECREASE, detail: `manifest number ${number} is lower than ${prev}, seen before` }
  if (number === prev) {
    if (previousHash !== undefined && previousHash !== hash) return { rule: RULE_NUMBER_REUSED, detail: `manifest number ${number} was seen before with other content` }
    return undefined
  }
  if (number !== prev + 1n) return { rule: RULE_NUMBER_GAP, detail: `manifest number went from ${prev} to ${number} (a gap of ${number - prev - 1n})` }
  return undefined
}
