/**
 * UTCTime and GeneralizedTime text rules of RFC 5280 §4.1.2.5 (whole seconds, 'Z', no fractions; UTCTime for
 * 1950–2049, GeneralizedTime from 2050). Shared by the DER writer (der.ts) and the strict reader (der-reader.ts).
 * Formatting truncates milliseconds; parsing is strict and throws DecodeError naming the rule.
 */
import { DecodeError } from '../util/errors.js'

/** Milliseconds truncated to whole seconds (RFC 5280 §4.1.2.5.2: no fractional seconds). */
export function wholeSeconds(d: Date): number {
  const ms = d.getTime()
  if (!Number.isFinite(ms)) throw new RangeError('RFC 5280 §4.1.2.5: invalid Date')
  return Math.floor(ms / 1000) * 1000
}

/** True when RFC 5280 §4.1.2.5 asks for UTCTime (years 1950 through 2049). */
export function isUtcTimeYear(year: number): boolean {
  return year >= 1950 && year <= 2049
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0')
}

function tail(d: Date): string {
  return pad(d.getUTCMonth() + 1, 2) + pad(d.getUTCDate(), 2) + pad(d.getUTCHours(), 2) +
    pad(d.getUTCMinutes(), 2) + pad(d.getUTCSeconds(), 2) + 'Z'
}

/** 'YYMMDDHHMMSSZ' (RFC 5280 §4.1.2.5.1); RangeError outside 1950–2049. */
export function formatUtcTime(date: Date): string {
  const d = new Date(wholeSeconds(date))
  const y = d.getUTCFullYear()
  if (!isUtcTimeYear(y)) throw new RangeError(`RFC 5280 §4.1.2.5.1: UTCTime cannot hold the year ${y}`)
  return pad(y % 100, 2) + tail(d)
}

/** 'YYYYMMDDHHMMSSZ' (RFC 5280 §4.1.2.5.2); RangeError outside 0000–9999. */
export function formatGeneralizedTime(date: Date): string {
  const d = new Date(wholeSeconds(date))
  const y = d.getUTCFullYear()
  if (y < 0 || y > 9999) throw new RangeError(`RFC 5280 §4.1.2.5.2: GeneralizedTime cannot hold the year ${y}`)
  return pad(y, 4) + tail(d)
}

const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function digits(s: string, from: number, n: number): number {
  let v = 0
  for (let i = from; i < from + n; i++) {
    const c = s.charCodeAt(i) - 48
    if (c < 0 || c > 9) return -1
    v = v * 10 + c
  }
  return v
}

/** Parse 'MMDDHHMMSSZ' after a year; throws DecodeError(rule) on any out-of-range field. */
function parseTail(s: string, from: number, year: number, rule: string): Date {
  const mo = digits(s, from, 2), da = digits(s, from + 2, 2), h = digits(s, from + 4, 2)
  const mi = digits(s, from + 6, 2), se = digits(s, from + 8, 2)
  if (s.charCodeAt(from + 10) !== 0x5a) throw new DecodeError(rule, `time ${JSON.stringify(s)} does not end in 'Z'`)
  if (mo < 1 || mo > 12 || da < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59) {
    throw new DecodeError(rule, `time ${JSON.stringify(s)} has a field out of range`)
  }
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  if (da > DAYS[mo - 1] || (mo === 2 && da === 29 && !leap)) {
    throw new DecodeError(rule, `time ${JSON.stringify(s)} names a day that does not exist`)
  }
  return new Date(Date.UTC(year, mo - 1, da, h, mi, se))
}

/** Strict UTCTime text (RFC 5280 §4.1.2.5.1): exactly YYMMDDHHMMSSZ; YY ≥ 50 means 19YY. */
export function parseUtcTime(s: string): Date {
  const rule = 'RFC 5280 §4.1.2.5.1'
  if (s.length !== 13) throw new DecodeError(rule, `UTCTime of ${s.length} characters is not YYMMDDHHMMSSZ`)
  const yy = digits(s, 0, 2)
  if (yy < 0) throw new DecodeError(rule, `UTCTime ${JSON.stringify(s)} has a bad year`)
  return parseTail(s, 2, yy >= 50 ? 1900 + yy : 2000 + yy, rule)
}

/** Strict GeneralizedTime text (RFC 5280 §4.1.2.5.2): exactly YYYYMMDDHHMMSSZ, no fractions. */
export function parseGeneralizedTime(s: string): Date {
  const rule = 'RFC 5280 §4.1.2.5.2'
  if (s.length !== 15) throw new DecodeError(rule, `GeneralizedTime of ${s.length} characters is not YYYYMMDDHHMMSSZ`)
  const y = digits(s, 0, 4)
  if (y < 0) throw new DecodeError(rule, `GeneralizedTime ${JSON.stringify(s)} has a bad year`)
  return parseTail(s, 4, y, rule)
}
