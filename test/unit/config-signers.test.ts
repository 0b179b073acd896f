/**
 * `[[signers]]`, default_signer and one_off_signer (issue 25, krill-reference.md §6): Krill's documented blocks
 * (doc/manual/source/hsm.rst) are accepted as written; KMIP, unknown keys, duplicate names, two OpenSSL signers, a
 * default_signer naming nothing, a world-readable user_pin_file, user_pin with user_pin_file and keys_path with
 * PostgreSQL storage are refused, each naming the key. The PIN is in no message.
 */
import t from 'tap'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { applyToml, defaults, verifyConfig, type Config } from '../../src/config.js'
import { effectiveSigners, readUserPin } from '../../src/config-signers.js'
import { tempDir } from '../helpers/daemon.js'

const load = (text: string): Config => {
  const c = defaults()
  applyToml(c, text, 'test.toml')
  verifyConfig(c, 'test.toml')
  return c
}

// Krill's hsm.rst, as written there.
const KRILL_OPENSSL = `[[signers]]
type = "OpenSSL"
name = "Default OpenSSL signer"
`
const KRILL_ROLES = `default_signer = "Default OpenSSL signer"
one_off_signer = "Default OpenSSL signer"

[[signers]]
type = "OpenSSL"
name = "Default OpenSSL signer"
`
const KRILL_PKCS11 = `[[signers]]
type = "PKCS#11"
name = "SoftHSMv2 via PKCS#11"
lib_path = "/usr/local/lib/softhsm/libsofthsm2.so"
slot = 0x12a9f8f7
user_pin = "xxxx"                                       # optional
login = true                                            # optional, default = true
`
const KRILL_KMIP = `[[signers]]
type = "KMIP"
name = "Kryptus via KMIP"
host = "my.hsm.example.com"
port = 5696                                             # optional, default = 5696
`

t.test("Krill's documented blocks are accepted as written", async (t) => {
  const a = load(KRILL_OPENSSL)
  t.match(a.signers, [{ type: 'OpenSSL', name: 'Default OpenSSL signer' }])
  t.same(effectiveSigners(a).defaultSigner, 'Default OpenSSL signer', 'the only signer is the default')
  const b = load(KRILL_ROLES)
  t.equal(b.default_signer, 'Default OpenSSL signer')
  t.equal(b.one_off_signer, 'Default OpenSSL signer')
  const c = load(KRILL_PKCS11)
  t.match(c.signers, [{ type: 'PKCS#11', name: 'SoftHSMv2 via PKCS#11', lib_path: '/usr/local/lib/softhsm/libsofthsm2.so', slot: 0x12a9f8f7, user_pin: 'xxxx', login: true }])
  const e = effectiveSigners(c)
  t.equal(e.defaultSigner, 'SoftHSMv2 via PKCS#11', 'the PKCS#11 signer is the default')
  t.equal(e.oneOffSigner, 'OpenSSL', 'one-off keys from the implicit OpenSSL signer (as Krill)')
  t.match(load(KRILL_PKCS11.replace('slot = 0x12a9f8f7', 'slot = "My token"')).signers, [{ slot: 'My token' }], 'a slot label')
  t.match(load(KRILL_PKCS11.replace('slot = 0x12a9f8f7', 'slot = 123456')).signers, [{ slot: 123456 }], 'an integer slot id')
  t.match(load(KRILL_PKCS11.replace('login = true', 'login = false').replace(/user_pin.*\n/, '')).signers, [{ login: false, user_pin: undefined }], 'no login, no PIN (a key pad)')
  const both = load(`default_signer = "SoftHSMv2 via PKCS#11"\n${KRILL_PKCS11}\n${KRILL_OPENSSL}`)
  t.equal(both.signers.length, 2, 'two signers with default_signer')
  t.match(load(KRILL_PKCS11.replace('login = true', 'login = true\nretry_seconds = 1\nbackoff_multiplier = 2\nmax_retry_seconds = 4')).signers, [{ retry_seconds: 1, backoff_multiplier: 2, max_retry_seconds: 4 }], "Krill's retry options")
})

t.test('refused, naming the key', async (t) => {
  t.throws(() => load(KRILL_KMIP), { message: /signers\[0\]\.type' is "KMIP": svcd supports "OpenSSL" and "PKCS#11"/ }, 'KMIP is refused clearly')
  t.throws(() => load(KRILL_PKCS11 + 'colour = "blue"\n'), { message: /key 'signers\[0\]\.colour' is not an option of a "PKCS#11" signer/ }, 'an unknown key')
  t.throws(() => load(KRILL_OPENSSL + 'lib_path = "/x.so"\n'), { message: /signers\[0\]\.lib_path' is not an option of a "OpenSSL" signer/ }, 'a PKCS#11 key on an OpenSSL signer')
  t.throws(() => load(`default_signer = "a"\n${KRILL_PKCS11.replace('SoftHSMv2 via PKCS#11', 'a')}${KRILL_PKCS11.replace('SoftHSMv2 via PKCS#11', 'a')}`), { message: /has two signers named 'a'/ }, 'duplicate names')
  t.throws(() => load(`default_signer = "a"\n[[signers]]\ntype = "OpenSSL"\nname = "a"\n[[signers]]\ntype = "OpenSSL"\nname = "b"\n`), { message: /more than one "OpenSSL" signer/ }, 'two OpenSSL signers')
  t.throws(() => load(`default_signer = "nothing"\n${KRILL_PKCS11}`), { message: /key 'default_signer' names 'nothing', which is not a \[\[signers\]\] name/ }, 'default_signer naming nothing')
  t.throws(() => load(`one_off_signer = "nothing"\n${KRILL_PKCS11}`), { message: /key 'one_off_signer' names 'nothing'/ }, 'one_off_signer naming nothing')
  t.throws(() => load(`${KRILL_PKCS11}${KRILL_OPENSSL}`), { message: /default_signer' must be set when more than one signer/ }, 'two signers without default_signer')
  t.throws(() => load(KRILL_PKCS11.replace('slot = 0x12a9f8f7', 'slot = -1')), { message: /signers\[0\]\.slot' must be a slot number/ }, 'a negative slot')
  t.throws(() => load(KRILL_PKCS11.replace('user_pin = "xxxx"', 'user_pin = "xxxx"\nuser_pin_file = "/etc/pin"')), { message: /user_pin_file' cannot be set with user_pin/ }, 'user_pin with user_pin_file')
  t.throws(() => load(KRILL_PKCS11.replace(/lib_path.*\n/, '')), { message: /signers\[0\]\.lib_path' must be set/ }, 'a PKCS#11 signer without lib_path')
  t.throws(() => load('[signers]\ntype = "OpenSSL"\n'), { message: /must be an array of tables/ }, '[signers] instead of [[signers]]')
  const pg = 'storage_uri = "postgresql://svc@localhost/svc"\nkey_encryption_key_file = "/etc/svcd/kek"\n'
  t.ok(load(pg + KRILL_OPENSSL), 'an OpenSSL signer without keys_path is fine with PostgreSQL')
  t.throws(() => load(pg + KRILL_OPENSSL + 'keys_path = "/var/lib/keys"\n'), { message: /signers\[0\]\.keys_path' cannot be used with PostgreSQL storage/ }, 'keys_path with PostgreSQL storage')
  t.match(load(KRILL_OPENSSL + 'keys_path = "/var/lib/keys"\n').signers, [{ keys_path: '/var/lib/keys' }], 'keys_path with SQLite')
  for (const text of [KRILL_PKCS11 + 'colour = 1\n', KRILL_PKCS11.replace('slot = 0x12a9f8f7', 'slot = true')]) {
    try {
      load(text)
    } catch (e) {
      t.notOk(String(e).includes('xxxx'), 'the PIN is not in the message')
    }
  }
})

t.test('user_pin_file: its first line, mode 0600 or stricter', async (t) => {
  const dir = tempDir(t)
  const file = join(dir, 'pin')
  writeFileSync(file, 'pin-from-file-1234\nignored\n', { mode: 0o600 })
  const c = load(KRILL_PKCS11.replace('user_pin = "xxxx"', `user_pin_file = "${file}"`))
  t.equal(readUserPin(c.signers[0]), 'pin-from-file-1234', 'read from the file')
  chmodSync(file, 0o644)
  let err: unknown
  try {
    readUserPin(c.signers[0])
  } catch (e) {
    err = e
  }
  t.match(String(err), /must not be readable by group or others \(chmod 600\)/, 'mode 0644 is refused')
  t.notOk(String(err).includes('pin-from-file-1234'), 'without the PIN')
  t.throws(() => readUserPin({ ...c.signers[0], user_pin_file: join(dir, 'missing') }), /cannot read user_pin_file .*ENOENT/, 'a missing file')
})
