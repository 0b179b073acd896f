/** Published file names as Krill makes them (krill-reference.md §5). */
import t from 'tap'
import { parseRoaPayload } from '../../../src/resources/roa-payload.js'
import { aggregateRoaFileName, aspaFileName, certFileName, crlFileName, manifestFileName, roaFileName } from '../../../src/objects/naming.js'
import { testKey } from '../../helpers/fixed-keys.js'

t.test('key-id names are UPPERCASE hex', async (t) => {
  const k = testKey('rpki-ca')
  t.equal(certFileName(k.ski), `${k.keyId}.cer`)
  t.equal(crlFileName(k.keyId.toLowerCase()), `${k.keyId}.crl`)
  t.equal(manifestFileName(k.ski), `${k.keyId}.mft`)
  t.match(certFileName(k.ski), /^[0-9A-F]{40}\.cer$/)
})

t.test('ROA and ASPA names', async (t) => {
  t.equal(roaFileName(parseRoaPayload('185.49.140.0/22 => 65502')), '3138352e34392e3134302e302f32322d3232203d3e203635353032.roa', 'the krill-reference.md §5 example')
  t.equal(roaFileName(parseRoaPayload('2001:db8::/32-48 => AS1')), `${Buffer.from('2001:db8::/32-48 => 1').toString('hex')}.roa`)
  t.equal(aggregateRoaFileName(65000), 'AS65000.roa')
  t.equal(aspaFileName(4294967295), 'AS4294967295.asa')
})
