/**
 * Krill's password scheme (src/crypto/password-hash.ts) and the users of the config (src/app/access/config-users.ts):
 * entries Krill itself produced verify; a vector computed independently (Python's hashlib.scrypt, NFKC by Python's
 * unicodedata) matches; an unknown user costs the same scrypt work as a known one (counted, not timed); the stored
 * hash is the only thing that decides.
 */
import { spawnSync } from 'node:child_process'
import t from 'tap'
import { DEFAULT_ROLES, expandPermissions } from '../../../src/api/access.js'
import { ConfigUsers } from '../../../src/app/access/config-users.js'
import { krillPasswordHash, normalise, scryptKdf, type Kdf } from '../../../src/crypto/password-hash.js'

/**
 * Entries of Krill's own test configuration for its web UI (NLnetLabs/krill test-resources/ui/
 * multi_user_config_file.conf, the version with salts, each line commented with its password): produced by
 * `krillc config user`, so svcd must accept them unchanged.
 */
const KRILL_ENTRIES = [
  { id: 'admin@krill', password: 'admin_pass', password_hash: 'b0a4dbf0aca1141158381ed7fc8183fa6efbb2b95ed8fe9c13edf226bf8776e2', salt: 'a15c9908c8dcc94aa3283e9c8e050828' },
  { id: 'readonly@krill', password: 'readonly_pass', password_hash: '3b363cfecb548a5ce776a4d14afaccd39c9a0d7067fb4b644bdd62ceda51530b', salt: 'd50aae8167168febdc62569ec982444a' },
]

/** A counting kdf: the real scrypt, and how often it ran. */
function counting(): { kdf: Kdf; calls: () => number } {
  let n = 0
  return { kdf: (i, s) => (n++, scryptKdf(i, s)), calls: () => n }
}

t.test("entries made by Krill's krillc verify, and nothing else does", async (t) => {
  for (const e of KRILL_ENTRIES) {
    const hash = await krillPasswordHash(e.id, e.password, Buffer.from(e.salt, 'hex'))
    t.equal(hash.toString('hex'), e.password_hash, `${e.id}`)
  }
  const users = new ConfigUsers({ users: Object.fromEntries(KRILL_ENTRIES.map((e) => [e.id, { role: e.id.split('@')[0]!, password_hash: e.password_hash, salt: e.salt }])), roles: { ...DEFAULT_ROLES } })
  const ok = await users.check('admin@krill', 'admin_pass')
  t.same(ok.ok && { id: ok.id, role: ok.role.name }, { id: 'admin@krill', role: 'admin' })
  t.same(await users.check('admin@krill', ' admin_pass \t'), { ...ok }, 'surrounding white space is trimmed, as Krill does')
  t.same(await users.check('admin@krill', 'readonly_pass'), { ok: false, reason: 'invalid-credentials' }, "another user's password")
  t.same(await users.check('readonly@krill', 'admin_pass'), { ok: false, reason: 'invalid-credentials' })
  t.same(await users.check('Admin@krill', 'admin_pass'), { ok: false, reason: 'invalid-credentials' }, 'user ids are exact')
})

t.test('an independently computed vector (Python hashlib.scrypt), with NFKC and trimming', async (t) => {
  // Full-width letters and a ligature: NFKC turns them into ASCII; surrounding blanks are trimmed first.
  const username = ' \uff4a\uff4f\uff45@example.com '
  const password = '\ufb01sh & chips \u2603 '
  const salt = Buffer.from('00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff', 'hex')
  const py = [
    'import hashlib, sys, unicodedata',
    'u, p, s = sys.argv[1], sys.argv[2], bytes.fromhex(sys.argv[3])',
    "n = lambda x: unicodedata.normalize('NFKC', x.strip())",
    "k = lambda i, salt: hashlib.scrypt(i, salt=salt, n=2**13, r=8, p=1, dklen=32)",
    "print(k(k(n(p).encode(), ('krill-lagosta-' + n(u)).encode()), s).hex())",
  ].join('\n')
  const r = spawnSync('python3', ['-c', py, username, password, salt.toString('hex')], { encoding: 'utf8' })
  // Computed once with the script above, for a machine without python3.
  const expected = r.status === 0 ? r.stdout.trim() : '0ce0908eed341a72d27547f9ad20322e5d794db397a68a5c76406df4da3bc884'
  if (r.status !== 0) t.comment('python3 not available: using the recorded vector')
  t.equal((await krillPasswordHash(username, password, salt)).toString('hex'), expected)
  t.equal(normalise(username), 'joe@example.com')
  t.equal((await krillPasswordHash('joe@example.com', 'fish & chips \u2603', salt)).toString('hex'), expected, 'the same as the normalised input')
})

t.test('an unknown user costs exactly the scrypt work of a known one, and gets the same answer as a wrong password', async (t) => {
  const salt = Buffer.alloc(16, 9)
  const hash = await krillPasswordHash('joe', 'right', salt)
  const c = counting()
  const users = new ConfigUsers({ users: { joe: { role: 'readonly', password_hash: hash.toString('hex'), salt: salt.toString('hex') } }, roles: { ...DEFAULT_ROLES }, kdf: c.kdf })
  const cost = async (u: string, p: string) => {
    const before = c.calls()
    const r = await users.check(u, p)
    return { r, calls: c.calls() - before }
  }
  const right = await cost('joe', 'right')
  const wrong = await cost('joe', 'wrong')
  const unknown = await cost('nobody', 'right')
  const empty = await cost('', '')
  t.equal(right.calls, 2, 'a known user: two scrypt runs')
  t.equal(wrong.calls, 2, 'a wrong password: two')
  t.equal(unknown.calls, 2, 'an unknown user: two as well (against the fake entry)')
  t.equal(empty.calls, 2, 'no user name at all: two')
  t.ok(right.r.ok)
  t.same(wrong.r, unknown.r, 'a wrong password and an unknown user: the same answer')
  t.same(unknown.r, { ok: false, reason: 'invalid-credentials' })
  t.equal(users.has('joe'), true)
  t.equal(users.has('nobody'), false)
})

t.test('a role that is not (or no longer) defined is refused after the password; a role without login still checks', async (t) => {
  const salt = Buffer.alloc(16, 1)
  const hash = async (u: string) => (await krillPasswordHash(u, 'pw', salt)).toString('hex')
  const roles = { ...DEFAULT_ROLES, viewer: { name: 'viewer', permissions: expandPermissions(['ca-list', 'ca-read']) } }
  const users = new ConfigUsers({ users: { ann: { role: 'gone', password_hash: await hash('ann'), salt: salt.toString('hex') }, bob: { role: 'viewer', password_hash: await hash('bob'), salt: salt.toString('hex') } }, roles })
  t.same(await users.check('ann', 'pw'), { ok: false, reason: 'unknown-role' })
  t.same(await users.check('ann', 'wrong'), { ok: false, reason: 'invalid-credentials' }, 'the password first: the role is never told to a guesser')
  const bob = await users.check('bob', 'pw')
  t.ok(bob.ok && !bob.role.permissions.has('login'), 'checked; whether viewer may log in is the login service’s decision')
})

t.test('at most maxConcurrent checks run at once; beyond maxWaiting a check is refused as busy', async (t) => {
  let running = 0
  let peak = 0
  const gates: (() => void)[] = []
  const kdf: Kdf = async (i, s) => {
    running++
    peak = Math.max(peak, running)
    await new Promise<void>((r) => gates.push(r))
    running--
    return scryptKdf(i, s)
  }
  const users = new ConfigUsers({ users: {}, roles: { ...DEFAULT_ROLES }, kdf, maxConcurrent: 2, maxWaiting: 3 })
  let settled = 0
  const checks = Array.from({ length: 5 }, (_, i) => users.check(`u${i}`, 'p').finally(() => settled++))
  t.same(await users.check('u5', 'p'), { ok: false, reason: 'busy' }, 'a sixth waits for nobody: refused at once')
  // Let the scrypt runs through one by one, as they arrive, until all five checks are done.
  while (settled < 5) {
    await new Promise((r) => setImmediate(r))
    gates.shift()?.()
  }
  const results = await Promise.all(checks)
  t.equal(peak, 2, 'never more than two at once')
  t.ok(results.every((r) => !r.ok && r.reason === 'invalid-credentials'), 'the waiting ones ran in turn')
})
