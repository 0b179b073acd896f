/**
 * OpenID Connect claim rules (app/access/oidc-claims.ts) with Krill's semantics (krill:src/daemon/http/auth/
 * providers/openid_connect/claims.rs): fixed values, a claim alone, match, match + subst with and without `$`
 * expansion, arrays item by item, booleans and numbers as their JSON text, sources, the user info fetched only when a
 * rule needs it, no match → no value (the login is refused).
 */
import t from 'tap'
import { applyClaimRules, expand, type ClaimSet } from '../../../src/app/access/oidc-claims.js'
import type { ClaimRule } from '../../../src/config-auth.js'

/** Sources with a counter of user info fetches. */
function sources(idToken: ClaimSet, userInfo?: ClaimSet) {
  const calls = { userInfo: 0 }
  return {
    calls,
    s: {
      idToken,
      userInfo: async () => {
        calls.userInfo++
        return userInfo
      },
    },
  }
}

const apply = (rules: ClaimRule[], idToken: ClaimSet, userInfo?: ClaimSet) => applyClaimRules(rules, sources(idToken, userInfo).s)

t.test('a fixed rule yields its subst; the first rule that yields wins', async (t) => {
  t.equal(await apply([{ subst: 'readonly' }], {}), 'readonly')
  t.equal(await apply([{ claim: 'role' }, { subst: 'readonly' }], { role: 'admin' }), 'admin', 'the claim first')
  t.equal(await apply([{ claim: 'role' }, { subst: 'readonly' }], {}), 'readonly', 'then the fallback')
  t.equal(await apply([{ subst: 'first' }, { claim: 'role' }], { role: 'admin' }), 'first', 'rules are tried in order')
})

t.test('no rule yields: undefined (the login is refused)', async (t) => {
  t.equal(await apply([], { email: 'a@b' }), undefined)
  t.equal(await apply([{ claim: 'groups', match: '^admins$', subst: 'admin' }], { groups: ['noc'] }), undefined)
  t.equal(await apply([{ claim: 'missing' }], { email: 'a@b' }, { other: 'x' }), undefined)
})

t.test('a claim without match is the value, whatever subst says (Krill ignores it)', async (t) => {
  t.equal(await apply([{ claim: 'email' }], { email: 'joe@example.com' }), 'joe@example.com')
  t.equal(await apply([{ claim: 'email', subst: 'ignored' }], { email: 'joe@example.com' }), 'joe@example.com')
})

t.test('match without subst: the whole value when the expression is found anywhere in it', async (t) => {
  t.equal(await apply([{ claim: 'email', match: '@example\\.com$' }], { email: 'joe@example.com' }), 'joe@example.com')
  t.equal(await apply([{ claim: 'email', match: '@example\\.com$' }], { email: 'joe@example.org' }), undefined)
  t.equal(await apply([{ claim: 'email', match: 'oe@' }], { email: 'joe@example.com' }), 'joe@example.com', 'unanchored: a search, not a full match')
})

t.test('match + subst without $: the matched part is replaced, the rest kept', async (t) => {
  t.equal(await apply([{ claim: 'groups', match: '^rpki-admins$', subst: 'admin' }], { groups: ['rpki-admins'] }), 'admin')
  t.equal(await apply([{ claim: 'dept', match: 'ops', subst: 'readwrite' }], { dept: 'netops-team' }), 'netreadwrite-team', "Krill's literal replacement keeps what surrounds the match")
})

t.test('match + subst with $: the expanded subst alone', async (t) => {
  t.equal(await apply([{ claim: 'email', match: '^([^@]+)@example\\.com$', subst: '$1' }], { email: 'joe@example.com' }), 'joe')
  t.equal(await apply([{ claim: 'group', match: 'krill-(\\w+)', subst: 'role-$1' }], { group: 'x-krill-admin-y' }), 'role-admin', 'only the expansion, not the surrounding text')
  t.equal(await apply([{ claim: 'group', match: '(?<who>\\w+)@(\\w+)', subst: '${2}:$who' }], { group: 'ann@ops' }), 'ops:ann', 'braced and named groups')
})

t.test("expand: Rust regex's template rules", async (t) => {
  const m = /(?<a>x)(y)?/.exec('x')!
  t.equal(expand('$1', m), 'x')
  t.equal(expand('$2', m), '', 'a group that did not take part is empty')
  t.equal(expand('$9', m), '', 'a group that does not exist is empty')
  t.equal(expand('$$1', m), '$1', '$$ is a $')
  t.equal(expand('${a}-$a', m), 'x-x')
  t.equal(expand('$1a', m), '', 'the longest name: `1a` is a (missing) named group, as in Rust')
  t.equal(expand('${1}a', m), 'xa', 'braces end the name')
  t.equal(expand('cost: $', m), 'cost: $', 'a $ that starts no name stays')
  t.equal(expand('${unclosed', m), '${unclosed', 'no closing brace: kept as it is')
})

t.test('arrays item by item: the first item that yields wins', async (t) => {
  const rules: ClaimRule[] = [{ claim: 'groups', match: '^rpki-(admin|readonly)s$', subst: '$1' }]
  t.equal(await apply(rules, { groups: ['staff', 'rpki-readonlys', 'rpki-admins'] }), 'readonly', 'the first matching item')
  t.equal(await apply([{ claim: 'groups' }], { groups: [{ nested: 1 }, null, 'first-string'] }), 'first-string', 'objects and null in an array are skipped')
  t.equal(await apply([{ claim: 'groups' }], { groups: [] }), undefined, 'an empty array yields nothing')
})

t.test('booleans and numbers as their JSON text; objects and null never match', async (t) => {
  t.equal(await apply([{ claim: 'admin', match: '^true$', subst: 'admin' }], { admin: true }), 'admin')
  t.equal(await apply([{ claim: 'admin' }], { admin: false }), 'false')
  t.equal(await apply([{ claim: 'level', match: '^4\\d$', subst: 'readwrite' }], { level: 42 }), 'readwrite')
  t.equal(await apply([{ claim: 'level' }], { level: 1.5 }), '1.5')
  t.equal(await apply([{ claim: 'flags' }], { flags: [7, true] }), '7', 'numbers in arrays too')
  t.equal(await apply([{ claim: 'address' }], { address: { country: 'NL' } }), undefined)
  t.equal(await apply([{ claim: 'nothing' }, { subst: 'fallback' }], { nothing: null }), 'fallback')
})

t.test('without a source: the ID token first, then the user info, fetched only when needed and at most once', async (t) => {
  const a = sources({ email: 'id@example.com' }, { email: 'info@example.com', groups: ['rpki-admins'] })
  t.equal(await applyClaimRules([{ claim: 'email' }], a.s), 'id@example.com', 'the ID token wins')
  t.equal(a.calls.userInfo, 0, 'the user info is not fetched when the ID token answers')
  t.equal(await applyClaimRules([{ claim: 'groups', match: '^rpki-admins$', subst: 'admin' }, { claim: 'groups' }, { claim: 'other' }], a.s), 'admin', 'found in the user info')
  t.equal(a.calls.userInfo, 1, 'fetched once')
  const b = sources({ groups: ['noc'] }, { groups: ['rpki-admins'] })
  t.equal(await applyClaimRules([{ claim: 'groups', match: '^rpki-admins$', subst: 'admin' }], b.s), 'admin', 'a value in the ID token that does not match lets the user info be tried (Krill)')
  const c = sources({}, undefined)
  t.equal(await applyClaimRules([{ claim: 'groups' }, { subst: 'readonly' }], c.s), 'readonly', 'no user info endpoint: the next rule')
  const d = sources({ sub: 'x' }, { groups: ['noc'] })
  t.equal(await applyClaimRules([{ subst: 'readonly' }], d.s), 'readonly')
  t.equal(d.calls.userInfo, 0, 'a fixed rule needs no user info')
})

t.test("sources: Krill's four, standard claims apart from additional ones", async (t) => {
  const id = { email: 'id@example.com', groups: ['from-id'] }
  const info = { email: 'info@example.com', groups: ['from-info'] }
  const one = async (rule: ClaimRule) => {
    const x = sources(id, info)
    return { value: await applyClaimRules([rule], x.s), fetched: x.calls.userInfo }
  }
  t.same(await one({ source: 'id-token-standard-claim', claim: 'email' }), { value: 'id@example.com', fetched: 0 })
  t.same(await one({ source: 'id-token-standard-claim', claim: 'groups' }), { value: undefined, fetched: 0 }, 'groups is not a standard claim')
  t.same(await one({ source: 'id-token-additional-claim', claim: 'groups' }), { value: 'from-id', fetched: 0 })
  t.same(await one({ source: 'id-token-additional-claim', claim: 'email' }), { value: undefined, fetched: 0 }, 'email is a standard claim')
  t.same(await one({ source: 'user-info-standard-claim', claim: 'email' }), { value: 'info@example.com', fetched: 1 })
  t.same(await one({ source: 'user-info-additional-claim', claim: 'groups' }), { value: 'from-info', fetched: 1 })
  t.same(await one({ source: 'user-info-additional-claim', claim: 'email' }), { value: undefined, fetched: 0 }, 'a rule that cannot match fetches nothing')
})
