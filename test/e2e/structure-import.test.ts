/**
 * Krill's structure import end to end (issue 27 acceptance): "a Krill structure import builds the tree it describes,
 * validated by rpki-client and FORT". An empty svcd (embedded repository, no testbed) imports the structure of
 * krill:tests/functional_ca_import.rs with svcd's ASPAs; rpki-client 9.7 and FORT 1.6.6 then see exactly the VRPs and
 * ASPAs it lists, over RRDP only and rsync only, with no warning.
 *
 *        ta
 *        |
 *      parent
 *      /    \
 *   child1  child2     (child1: 3 ROAs and an ASPA)
 *      \    /
 *     grandchild       (two parents; a ROA under each, and an ASPA)
 */
import t from 'tap'
import { repoDaemon, waitPublished } from '../helpers/cas.js'
import { rpMissing, validate } from '../helpers/rp.js'
import { krillStructure, STRUCTURE_ASPAS, STRUCTURE_VRPS } from '../helpers/structure.js'

t.test('a Krill structure import builds the tree it describes, validated by rpki-client and FORT', { skip: rpMissing() }, async (t) => {
  const d = await repoDaemon(t, { testbed: false })
  const file = d.file('structure.json', JSON.stringify(krillStructure(d)))
  const started = process.hrtime.bigint()
  await d.cli(['bulk', 'import', '--file', file])
  t.comment(`import of 4 CAs under a new TA answered in ${Number((process.hrtime.bigint() - started) / 1_000_000n)} ms`)
  await waitPublished(d, (u) => u.filter((x) => x.endsWith('.roa')).length === 5 && u.filter((x) => x.endsWith('.asa')).length === 2)
  for (const transport of ['rrdp', 'rsync'] as const) {
    const r = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps: STRUCTURE_VRPS, aspas: STRUCTURE_ASPAS, transport, validators: ['rpki-client', 'fort'] })
    t.equal(r.code, 0, `the structure's VRPs and ASPAs, ${transport} only, no warnings\n${r.lines}`)
  }
})
