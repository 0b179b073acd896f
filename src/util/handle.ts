/**
 * Handles (RFC 8183 §5): names a CA uses for its peers. Branded string types per role, built only through the
 * checking constructors below, so a ChildHandle cannot be passed where a CaHandle is expected.
 */
import { ParseError } from './errors.js'

export type CaHandle = string & { readonly kind: 'CaHandle' }
export type ChildHandle = string & { readonly kind: 'ChildHandle' }
export type ParentHandle = string & { readonly kind: 'ParentHandle' }
export type PublisherHandle = string & { readonly kind: 'PublisherHandle' }

/** Local names (CA, child, parent, publisher as chosen here): spec §2.1 allows a-z, A-Z, 0-9, `-`, `_`. */
export const LOCAL_HANDLE = /^[a-zA-Z0-9_-]{1,255}$/
/** Handles on the wire, RFC 8183 §5 `handle` type: `[\-_A-Za-z0-9/]{1,255}` (peers use `/`, e.g. `Alice/Bob-42`). */
export const WIRE_HANDLE = /^[-_A-Za-z0-9/]{1,255}$/

function check(kind: string, text: string, pattern: RegExp, rule: string): void {
  if (typeof text !== 'string' || !pattern.test(text)) {
    const shown = JSON.stringify(String(text).slice(0, 80))
    throw new ParseError(rule, `${kind} ${shown} is invalid: use 1 to 255 characters from ${pattern === LOCAL_HANDLE ? 'a-z, A-Z, 0-9, "-" and "_"' : 'a-z, A-Z, 0-9, "-", "_" and "/"'}`)
  }
}

/** The parser of one kind of handle: `text` checked against `pattern` (a ParseError citing `rule`), then branded. */
function handleParser<H extends string>(kind: string, pattern: RegExp, rule: string): (text: string) => H {
  return (text) => {
    check(kind, text, pattern, rule)
    return text as H
  }
}

/** A local CA name (spec §2.1). */
export const caHandle = handleParser<CaHandle>('CA handle', LOCAL_HANDLE, 'spec §2.1')

/** A child's handle as the parent knows it; RFC 8183 allows `/` in handles on the wire. */
export const childHandle = handleParser<ChildHandle>('child handle', WIRE_HANDLE, 'RFC 8183 §5')

/** A parent's handle (local parent name or the parent_handle of a parent response). */
export const parentHandle = handleParser<ParentHandle>('parent handle', WIRE_HANDLE, 'RFC 8183 §5')

/** A publisher's handle at a publication server; it also names the publisher's rsync jail, so no `/`. */
export const publisherHandle = handleParser<PublisherHandle>('publisher handle', LOCAL_HANDLE, 'RFC 8183 §5')

/** True when the text is a valid RFC 8183 wire handle. */
export function isWireHandle(text: string): boolean {
  return typeof text === 'string' && WIRE_HANDLE.test(text)
}
