/**
 * A slow token (issue 25 item 3): the real SoftHSM2 behind test/helpers/p11-fault.c, a PKCS#11 module built here with
 * cc that makes C_Sign and C_GenerateKeyPair sleep as its control file says. A slow signature still signs and makes
 * the signer report sys-signer-slow; a fast one clears it.
 */
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { verify } from 'node:crypto'
import { systemClock } from '../../../src/clock.js'
import { Pkcs11Signer } from '../../../src/signers/pkcs11-signer.js'
import { ROOT } from '../../helpers/paths.js'
import { tempDir } from '../../helpers/daemon.js'
import { softHsm } from '../../helpers/softhsm.js'

const hsm = softHsm(t, { label: 'unit-slow' })
process.env.SOFTHSM2_CONF = hsm.conf
const dir = tempDir(t, 'svc-p11-fault-')
const shim = join(dir, 'p11-fault.so')
execFileSync('cc', ['-shared', '-fPIC', '-o', shim, join(ROOT, 'test', 'helpers', 'p11-fault.c'), '-I', join(ROOT, 'node_modules', 'pkcs11js', 'includes', 'pkcs11'), '-ldl'])
const control = join(dir, 'fault')
process.env.SVC_P11_FAULT = control
process.env.SVC_P11_REAL = hsm.lib

t.test('a slow signature signs and is reported as sys-signer-slow; a fast one clears it', async (t) => {
  writeFileSync(control, 'delay_ms=0\n')
  const s = new Pkcs11Signer({
    name: 'slow', libPath: shim, slot: hsm.label, userPin: hsm.pin, login: true, retry: { firstMs: 100, multiplier: 1.5, maxMs: 300 },
    slowMs: 150, oneOffPoolSize: 0, concurrency: 1, checkMs: 0, clock: systemClock,
  })
  s.start()
  t.equal(s.problem(), undefined, 'the token opened through the fault module')
  const keyId = await s.createKey()
  const key = s.signingKey(keyId)
  const data = new TextEncoder().encode('a CRL')
  const ok = (sig: Uint8Array) => verify('sha256', data, { key: Buffer.from(key.spki), format: 'der', type: 'spki' }, sig)
  t.ok(ok(key.sign(data)), 'a fast signature')
  t.equal(s.problem(), undefined)
  writeFileSync(control, 'delay_ms=400\n')
  const started = performance.now()
  const sig = key.sign(data)
  t.ok(performance.now() - started >= 400, 'the token answered slowly')
  t.ok(ok(sig), 'the slow signature is still made and verifies')
  t.match(s.problem(), { label: 'sys-signer-slow', args: { signer: 'slow', operation: 'C_Sign' } }, 'sys-signer-slow')
  writeFileSync(control, 'delay_ms=0\n')
  t.ok(ok(key.sign(data)))
  t.equal(s.problem(), undefined, 'cleared when fast again')
  s.destroyKey(keyId)
  await s.stop()
})
