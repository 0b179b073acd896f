/**
 * Issue 25 acceptance, RRDP only: ta, testbed and a CA tree (testbed → ca1 → ca2) with every CA key in SoftHSM2
 * (`default_signer = "hsm"`, one-off EE keys from the software signer, Krill's default) publish ROAs, an ASPA, a
 * BGPsec router certificate and manifests that rpki-client and FORT validate with no warnings; svcd restarts on the
 * same data dir and token and carries on; no private key of a CA is in the data dir or the database. The same tree is
 * then built on the software signer, for the times of the creation and of a 10-ROA change on each (printed, not
 * asserted). The scenario is test/helpers/hsm-tree.ts; hsm-repository-rsync.test.ts runs it over rsync only with the
 * one-off keys in the token too.
 */
import t from 'tap'
import { rpMissing } from '../helpers/rp.js'
import { softHsm } from '../helpers/softhsm.js'
import { hsmRepositoryRun } from '../helpers/hsm-tree.js'

t.test('every CA key in SoftHSM2, one-off keys in software: validated over RRDP only, before and after a restart', { skip: rpMissing() }, async (t) => {
  await hsmRepositoryRun(t, softHsm(t), { transport: 'rrdp', oneOffInToken: false, compareSoftware: true })
})
