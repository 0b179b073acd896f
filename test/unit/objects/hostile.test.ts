/**
 * Bad input: truncated, over-long, wrongly tagged, non-minimal, deeply nested, gigantic and randomly mutated DER.
 * Every decoder either decodes or throws a typed library error naming a rule; never a crash, never a hang.
 */
import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import { decodeAspa } from '../../../src/objects/aspa.js'
import { decodeCert, inspectCert } from '../../../src/objects/cert.js'
import { decodeCrl, inspectCrl } from '../../../src/objects/crl.js'
import { decodeManifest, inspectManifest } from '../../../src/objects/manifest.js'
import { detectObjectType } from '../../../src/objects/object-type.js'
import { decodeRoa, inspectRoa } from '../../../src/objects/roa.js'
import { decodeSignedObject } from '../../../src/objects/signed-object.js'
import { decodeTal } from '../../../src/objects/tal.js'
import { DecodeError, LibraryError } from '../../../src/util/errors.js'
import { testKey } from '../../helpers/fixed-keys.js'
import { fixture } from '../../helpers/paths.js'
import { noHang } from '../../helpers/no-hang.js'

const golden = (p: string): Uint8Array => new Uint8Array(readFileSync(fixture('objects', p)))
const ca = testKey('rpki-ca').keyId
const ROA = golden('sample/repo/ca/AS65001.roa')
const CERT = golden('sample/ta/ta.cer')

type Decoder = (b: Uint8Array) => unknown
const DECODERS: [string, Decoder, Uint8Array][] = [
  ['cert', (b) => inspectCert(decodeCert(b)), CERT],
  ['crl', (b) => inspectCrl(decodeCrl(b)), golden(`sample/repo/ca/${ca}.crl`)],
  ['manifest', (b) => inspectManifest(decodeManifest(b)), golden(`sample/repo/ca/${ca}.mft`)],
  ['roa', (b) => inspectRoa(decodeRoa(b)), ROA],
  ['aspa', (b) => decodeAspa(b), golden('sample/repo/ca/AS65001.asa')],
]

/** Decoding `bytes` either succeeds or throws a LibraryError with a rule; anything else fails the test. */
function safe(t: Test, decode: Decoder, bytes: Uint8Array, what: string, mustFail = false): void {
  try {
    decode(bytes)
    if (mustFail) t.fail(`${what}: decoded`)
  } catch (e) {
    if (!(e instanceof LibraryError) || e.rule === '') t.fail(`${what}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`)
  }
}

function rejects(t: Test, decode: Decoder, bytes: Uint8Array, rule: string | RegExp, what: string): void {
  try {
    decode(bytes)
    t.fail(`${what}: decoded`)
  } catch (e) {
    t.ok(e instanceof DecodeError, `${what}: DecodeError`)
    if (typeof rule === 'string') t.equal((e as DecodeError).rule, rule, `${what}: ${rule}`)
    else t.match((e as DecodeError).rule, rule, `${what}: rule`)
  }
}

t.test('truncated at every length: a typed error, never a crash', async (t) => {
  for (const [name, decode, bytes] of DECODERS) {
    let failed = 0
    for (let n = 0; n < bytes.length; n += 7) {
      safe(t, decode, bytes.subarray(0, n), `${name} truncated to ${n}`, true)
      failed++
    }
    t.ok(failed > 10, `${name}: ${failed} truncations rejected`)
  }
})

t.test('over-long, trailing, wrongly tagged, non-minimal, indefinite and nested input', async (t) => {
  const over = Uint8Array.from(ROA)
  over[3] += 1
  rejects(t, decodeRoa, over, 'X.690 §8.1.3', 'length longer than the data')
  rejects(t, decodeRoa, new Uint8Array([...ROA, 0]), 'X.690 §8.1.1', 'a trailing byte')
  const tagged = Uint8Array.from(ROA)
  tagged[0] = 0x31
  rejects(t, decodeRoa, tagged, 'RFC 5652 §3', 'SET instead of SEQUENCE')
  rejects(t, decodeCert, Uint8Array.of(0x30, 0x81, 0x03, 0x02, 0x01, 0x01), 'RFC 5280 §4.1', 'non-minimal length: BER, structurally not a certificate')
  rejects(t, decodeCert, Uint8Array.of(0x30, 0x04, 0x02, 0x02, 0x00, 0x01), /X.690|RFC 5280/, 'non-minimal INTEGER')
  rejects(t, decodeRoa, Uint8Array.of(0x30, 0x80, 0x00, 0x00), 'RFC 5652 §3', 'empty indefinite-length SEQUENCE')
  const deep = new Uint8Array(20_000)
  for (let i = 0; i < 10_000; i++) deep.set([0x30, 0x80], 2 * i)
  rejects(t, decodeRoa, deep, /X.690|DER reader limit/, 'ten thousand nested indefinite SEQUENCEs')
  const nested: number[] = []
  for (let i = 0; i < 200; i++) nested.push(0x30, 0x80)
  for (let i = 0; i < 200; i++) nested.push(0, 0)
  rejects(t, decodeCert, Uint8Array.from(nested), /X.690|DER reader limit/, '200 nested SEQUENCEs')
  rejects(t, decodeCert, Uint8Array.of(0x30, 0x84, 0x7f, 0xff, 0xff, 0xff, 0x02), 'X.690 §8.1.3', 'a 2 GiB length claim')
  rejects(t, decodeCert, Uint8Array.of(0x30, 0x89, 1, 2, 3, 4, 5, 6, 7, 8, 9), 'X.690 §8.1.3', 'nine length octets')
  rejects(t, decodeCert, Uint8Array.of(0x1f, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00), /X.690|DER reader limit/, 'a huge tag number')
  rejects(t, decodeCert, new Uint8Array(0), 'X.690 §8.1.2', 'empty input')
})

t.test('gigantic input is refused quickly', async (t) => {
  const big = new Uint8Array(48 * 1024 * 1024)
  big.set([0x30, 0x84, 0x03, 0x00, 0x00, 0x00, 0x04, 0x84, 0x02, 0xff, 0xff, 0xf0])
  const start = performance.now()
  rejects(t, decodeRoa, big, /X.690|RFC 5652/, '48 MiB')
  const wide = new Uint8Array(2 * 1024 * 1024)
  for (let i = 0; i < wide.length; i += 2) wide.set([0x05, 0x00], i)
  rejects(t, decodeCert, Uint8Array.from([0x30, 0x83, 0x20, 0x00, 0x00, ...wide]), /X.690|RFC 5280/, 'a million NULLs in one SEQUENCE')
  noHang(t, start, 'hostile objects refused')
  t.equal(detectObjectType(big), 'unknown', 'detection of garbage is quick too')
})

t.test('random mutations of every object type: decoded or a typed error', async (t) => {
  let seed = 42
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n
  }
  for (const [name, decode, bytes] of [...DECODERS, ['envelope', decodeSignedObject, ROA] as [string, Decoder, Uint8Array]]) {
    for (let i = 0; i < 400; i++) {
      const m = Uint8Array.from(bytes)
      for (let k = 0; k <= rand(3); k++) m[rand(m.length)] = rand(256)
      safe(t, decode, m, `${name} mutation ${i}`)
    }
    t.pass(`${name}: 400 mutations`)
  }
})

t.test('TALs: binary, bad base64 and oversized input are typed errors', async (t) => {
  rejects(t, decodeTal, new TextEncoder().encode('rsync://x.example/ta.cer\n\nnot*base64\n'), 'RFC 8630 §2.2', 'bad base64')
  rejects(t, decodeTal, CERT, 'RFC 8630 §2.2', 'a certificate given as a TAL')
  rejects(t, decodeTal, new Uint8Array(1 << 20).fill(0x41), 'RFC 8630 §2.2', 'one MiB of text')
})
