/** Assert that a function throws a library error (DecodeError, EncodeError, VerificationError …) naming `rule`. */
import type { Test } from 'tap'
import { LibraryError, ParseError } from '../../src/util/errors.js'

export interface RuleMatch {
  /** The error class name, e.g. 'DecodeError'. */
  name?: string
  message?: RegExp
}

export function throwsRule(t: Test, fn: () => unknown, rule: string, match: RuleMatch = {}, what?: string): void {
  const label = what ?? `throws ${match.name ?? 'a library error'} naming ${rule}`
  try {
    fn()
  } catch (e) {
    if (!(e instanceof LibraryError)) return void t.fail(`${label}: got ${String(e)}`)
    t.equal(e.rule, rule, label)
    if (match.name !== undefined) t.equal(e.name, match.name, `${label}: class`)
    if (match.message !== undefined) t.match(e.message, match.message, `${label}: message`)
    return
  }
  t.fail(`${label}: nothing was thrown`)
}

/** Assert that `fn` throws a ParseError with exactly `message` (text input: resources, ROA lines, delta files). */
export function failsParse(t: Test, fn: () => unknown, message: string): void {
  try {
    fn()
  } catch (e) {
    t.type(e, ParseError)
    t.equal((e as Error).message, message)
    return
  }
  t.fail(`expected a ParseError: ${message}`)
}
