/**
 * Issue 25 acceptance, rsync only: ta, testbed and a CA tree (testbed → ca1 → ca2) with every CA key in SoftHSM2
 * (`default_signer = "hsm"`) and the one-off EE keys of ROAs, ASPAs and manifests from the token too
 * (`one_off_signer = "hsm"`) publish objects that rpki-client and FORT validate with no warnings; svcd restarts on the
 * same data dir and token and carries on; no private key of a CA is in the data dir or the database. The scenario is
 * test/helpers/hsm-tree.ts; hsm-repository-rrdp.test.ts runs it over RRDP only with software one-off keys.
 */
import t from 'tap'
import { rpMissing } from '../helpers/rp.js'
import { softHsm } from '../helpers/softhsm.js'
import { hsmRepositoryRun } from '../helpers/hsm-tree.js'

t.test('every CA key and every one-off key in SoftHSM2: validated over rsync only, before and after a restart', { skip: rpMissing() }, async (t) => {
  await hsmRepositoryRun(t, softHsm(t), { transport: 'rsync', oneOffInToken: true, compareSoftware: false })
})
