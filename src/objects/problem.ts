/**
 * Profile problems found by the `inspect` verbs of src/objects/ (RFC 6487, 6488, 9286, 9582, ASPA, RFC 8630): each
 * names its rule ('RFC 6487 §4.8.4') and says what is wrong, in rpki-client's style. An 'error' breaks the profile;
 * a 'note' is tolerated (an older or a SHOULD-level form, e.g. a CRL's empty revokedCertificates SEQUENCE).
 * Used by every object module and by `svcc inspect`.
 */

export type Severity = 'error' | 'note'

export interface Problem {
  /** The rule broken, e.g. 'RFC 9582 §4.3.1'. */
  readonly rule: string
  /** What is wrong, without the rule: 'IPv4 appears twice'. */
  readonly message: string
  readonly severity: Severity
}

/** A profile violation. */
export function problem(rule: string, message: string): Problem {
  return { rule, message, severity: 'error' }
}

/** A tolerated deviation (worth showing, never a reason to reject). */
export function note(rule: string, message: string): Problem {
  return { rule, message, severity: 'note' }
}

/** Whether any problem is an error (the object breaks its profile). */
export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((p) => p.severity === 'error')
}

/** Only the errors. */
export function errorsOf(problems: readonly Problem[]): Problem[] {
  return problems.filter((p) => p.severity === 'error')
}

/** 'RFC 9582 §4.3.1: IPv4 appears twice' (rpki-client's form, without the file name). */
export function formatProblem(p: Problem): string {
  return p.rule === '' ? p.message : `${p.rule}: ${p.message}`
}

/** Problems recorded as '<rule>: <message>' strings (asn1/rfc3779.ts reports this way) turned into Problems. */
export function problemFromText(text: string, severity: Severity = 'error'): Problem {
  const m = /^((?:RFC|X\.)[^:]*): (.*)$/s.exec(text)
  const rule = m ? m[1] : ''
  const message = m ? m[2] : text
  return { rule, message, severity }
}
