/** Key identifiers (RFC 6487 §4.8.2): equal to the SKI of every real certificate in the fixtures. */
import { createHash } from 'node:crypto'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { bitString, nul, oid, seq } from '../../../src/asn1/der.js'
import {
  children, cursor, expectSequence, firstChild, oidIs, parseDer, parseEmbedded, readOctetString,
} from '../../../src/asn1/der-reader.js'
import { isKeyId, keyIdentifier, keyIdHex } from '../../../src/crypto/key-id.js'
import { DecodeError } from '../../../src/util/errors.js'

const FIXTURES = '/work/shared/fixtures/objects'

/** SPKI and SKI extension value of a certificate, read with the strict reader. */
function spkiAndSki(der: Uint8Array): { spki: Uint8Array; ski?: Uint8Array } {
  const tbs = expectSequence(firstChild(parseDer(der)), 'RFC 5280 §4.1')
  tbs.optional(0xa0)
  for (let i = 0; i < 5; i++) tbs.next('RFC 5280 §4.1')
  const spki = tbs.next('RFC 5280 §4.1', 0x30).raw()
  let ski: Uint8Array | undefined
  for (let n = tbs.peek(); n !== undefined; n = tbs.peek()) {
    tbs.next('x')
    if (n.tag !== 0xa3) continue
    for (const ext of children(firstChild(n)!)) {
      const c = cursor(ext)
      if (!oidIs(c.next('x'), '2.5.29.14')) continue
      c.optional(0x01)
      ski = readOctetString(parseEmbedded(c.next('x', 0x04)))
    }
  }
  return { spki, ski }
}

function* certs(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) yield* certs(p)
    else if (name.endsWith('.cer')) yield p
  }
}

t.test('keyIdentifier equals the SKI of real certificates', async (t) => {
  let files: string[]
  try {
    files = [...certs(FIXTURES)]
  } catch {
    t.comment(`${FIXTURES} absent: skipped`)
    return
  }
  let n = 0
  for (const f of files) {
    const { spki, ski } = spkiAndSki(new Uint8Array(readFileSync(f)))
    if (ski === undefined || ski.length !== 20) continue
    t.same(keyIdentifier(spki), ski, f)
    n++
  }
  t.ok(n >= 20, `${n} certificates checked`)
})

t.test('hashes the key bits only, not the SPKI or the unused-bits octet', async (t) => {
  const key = Uint8Array.of(0x30, 0x03, 0x02, 0x01, 0x01)
  const spki = seq(seq(oid('1.2.840.113549.1.1.1'), nul()), bitString(key))
  const want = createHash('sha1').update(key).digest()
  t.same(keyIdentifier(spki), new Uint8Array(want))
  t.equal(keyIdHex(keyIdentifier(spki)), want.toString('hex').toUpperCase())
  t.throws(() => keyIdentifier(seq(seq(oid('1.2.840.113549.1.1.1'), nul()), bitString(key, 1))), DecodeError)
  t.throws(() => keyIdentifier(seq(seq(oid('1.2.840.113549.1.1.1'), nul()))), DecodeError)
  t.throws(() => keyIdentifier(Uint8Array.of(1, 2, 3)), DecodeError)
  t.throws(() => keyIdHex(new Uint8Array(19)), DecodeError)
  t.ok(isKeyId('0123456789ABCDEF0123456789ABCDEF01234567'))
  t.notOk(isKeyId('0123456789abcdef0123456789abcdef01234567'))
  t.notOk(isKeyId('../' + 'A'.repeat(37)))
})
