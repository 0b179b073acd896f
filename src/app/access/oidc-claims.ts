/**
 * OpenID Connect claim rules (Krill's `id_claims` / `role_claims`, krill:src/daemon/http/auth/providers/
 * openid_connect/claims.rs): which user id and which role a login's claims give. Pure: the claims of the ID token are
 * given, those of the user info endpoint are fetched only when a rule needs them (app/access/oidc-service.ts).
 *
 * Krill's semantics, rule by rule, the first rule that yields a value wins:
 * - a rule without `claim` is a fixed value: its `subst`;
 * - a rule with `claim` looks the claim up in its `source`, or (no source) in the ID token, then in the user info;
 * - a string value is used as it is, `true`/`false` and numbers as their JSON text, an array item by item (the first
 *   item that yields wins); objects and null never match;
 * - without `match` the value is the result (a `subst` is then ignored); with `match` (a regular expression, searched
 *   anywhere in the value) and no `subst`, the whole value when it matches; with both, a `subst` holding a `$` is
 *   expanded with the match's groups (`$1`, `${1}`, `$name`, `${name}`, `$$` for a `$`) and is the result, a `subst`
 *   without `$` replaces the matched part of the value.
 */
import type { ClaimRule } from '../../config-auth.js'

/** A claims object as the provider sent it (the ID token's payload, or the user info response). */
export type ClaimSet = Readonly<Record<string, unknown>>

/** Where the rules read claims: the ID token's, and (on demand, at most once) the user info's. */
export interface ClaimSources {
  idToken: ClaimSet
  /** The user info claims; undefined when the provider has no user info endpoint. Called only when a rule needs it. */
  userInfo: () => Promise<ClaimSet | undefined>
}

/**
 * The claims OpenID Connect itself defines (Core 1.0 §2 for the ID token, §3.1.3.6 for the hashes, §5.1 for the
 * standard claims): Krill's `*-standard-claim` sources see these, its `*-additional-claim` sources every other one.
 */
export const STANDARD_CLAIMS: ReadonlySet<string> = new Set([
  'iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'acr', 'amr', 'azp', 'at_hash', 'c_hash',
  'name', 'given_name', 'family_name', 'middle_name', 'nickname', 'preferred_username', 'profile', 'picture', 'website',
  'email', 'email_verified', 'gender', 'birthdate', 'zoneinfo', 'locale', 'phone_number', 'phone_number_verified',
  'address', 'updated_at',
])

/** The value of the first rule that yields one, or undefined when none does (the login is then refused). */
export async function applyClaimRules(rules: readonly ClaimRule[], sources: ClaimSources): Promise<string | undefined> {
  const userInfo = once(sources.userInfo)
  for (const rule of rules) {
    if (rule.claim === undefined) {
      if (rule.subst !== undefined) return rule.subst
      continue // config-auth.ts refuses such a rule; nothing to yield
    }
    const found = await applyMatchRule(rule as ClaimRule & { claim: string }, sources.idToken, userInfo)
    if (found !== undefined) return found
  }
  return undefined
}

async function applyMatchRule(rule: ClaimRule & { claim: string }, idToken: ClaimSet, userInfo: () => Promise<ClaimSet | undefined>): Promise<string | undefined> {
  const standard = STANDARD_CLAIMS.has(rule.claim)
  switch (rule.source) {
    case 'id-token-standard-claim':
      return standard ? fromClaims(rule, idToken) : undefined
    case 'id-token-additional-claim':
      return standard ? undefined : fromClaims(rule, idToken)
    case 'user-info-standard-claim':
      return standard ? fromClaims(rule, await userInfo()) : undefined
    case 'user-info-additional-claim':
      return standard ? undefined : fromClaims(rule, await userInfo())
    case undefined:
      return fromClaims(rule, idToken) ?? fromClaims(rule, await userInfo())
  }
}

/** The rule applied to the claim's value in one claims object (Krill's `process_claim_json`). */
function fromClaims(rule: ClaimRule & { claim: string }, claims: ClaimSet | undefined): string | undefined {
  if (!claims || !Object.hasOwn(claims, rule.claim)) return undefined
  const value = claims[rule.claim]
  if (Array.isArray(value)) {
    for (const item of value) {
      const s = scalarText(item)
      const r = s === undefined ? undefined : applyToText(rule, s)
      if (r !== undefined) return r
    }
    return undefined
  }
  const s = scalarText(value)
  return s === undefined ? undefined : applyToText(rule, s)
}

/** A string as it is, a boolean or number as its JSON text; anything else (object, null) has none. */
function scalarText(v: unknown): string | undefined {
  if (typeof v === 'string') return v
  if (typeof v === 'boolean' || typeof v === 'number') return JSON.stringify(v)
  return undefined
}

/** Krill's `process_claim_str`: `match` searched in the text, then `subst` expanded or replacing the match. */
function applyToText(rule: ClaimRule, s: string): string | undefined {
  if (rule.match === undefined) return s
  const m = new RegExp(rule.match, 'u').exec(s)
  if (!m) return undefined
  if (rule.subst === undefined) return s
  if (!rule.subst.includes('$')) return s.slice(0, m.index) + rule.subst + s.slice(m.index + m[0].length)
  return expand(rule.subst, m)
}

/**
 * A replacement template expanded with a match's groups, as Rust's regex `Captures::expand` does: `$$` is a `$`;
 * `${name}` and `$name` (the longest run of letters, digits and `_`) name a group by number or by name; a group
 * that does not exist or did not take part is empty; a `$` that starts neither is kept as it is.
 */
export function expand(template: string, m: RegExpExecArray): string {
  let out = ''
  let i = 0
  while (i < template.length) {
    const c = template[i]!
    if (c !== '$') {
      out += c
      i++
      continue
    }
    if (template[i + 1] === '$') {
      out += '$'
      i += 2
      continue
    }
    let name: string | undefined
    let next = i + 1
    if (template[i + 1] === '{') {
      const close = template.indexOf('}', i + 2)
      if (close > i + 2) {
        name = template.slice(i + 2, close)
        next = close + 1
      }
    } else {
      const run = /^[A-Za-z0-9_]+/.exec(template.slice(i + 1))
      if (run) {
        name = run[0]
        next = i + 1 + run[0].length
      }
    }
    if (name === undefined) {
      out += '$'
      i++
      continue
    }
    out += group(m, name)
    i = next
  }
  return out
}

function group(m: RegExpExecArray, name: string): string {
  if (/^[0-9]+$/.test(name)) return m[Number(name)] ?? ''
  return m.groups?.[name] ?? ''
}

/** `f` called at most once; later calls share its promise. */
function once<T>(f: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined
  return () => (p ??= f())
}
