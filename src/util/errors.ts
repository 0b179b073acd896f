/**
 * Library errors (design.md §2, style.md §7): narrow, typed, and naming the rule they enforce.
 * Thrown by the pure library layers (util … protocol); the domain wraps them in AppError.
 */

/** Base of all library errors: `rule` names the RFC section (or other source) that was broken. */
export class LibraryError extends Error {
  readonly rule: string
  constructor(rule: string, message: string, options?: { cause?: unknown }) {
    super(rule ? `${rule}: ${message}` : message, options)
    this.rule = rule
    this.name = new.target.name
  }
}

/** Bytes or text could not be decoded (syntax). */
export class DecodeError extends LibraryError {}

/** Decoded, but the value breaks its profile (e.g. RFC 6487 for a resource certificate). */
export class InspectionError extends LibraryError {}

/** Checking against an issuer, a key or a time failed. */
export class VerificationError extends LibraryError {}

/** Text input (resources, ROA lines, handles, URIs) did not parse. */
export class ParseError extends LibraryError {}
