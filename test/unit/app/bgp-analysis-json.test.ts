/** The JSON text of an analysis answer in pieces (app/bgp/analysis-json.ts): joined, it is JSON.stringify's text. */
import t from 'tap'
import type { BgpAnalysisSuggestion } from '../../../src/api/cas.js'
import { arrayJsonPieces, iterableJsonPieces, suggestionJsonPieces } from '../../../src/app/bgp/analysis-json.js'

t.test('arrays and suggestions of any size, in pieces of at most `per` entries', async (t) => {
  for (const n of [0, 1, 2, 3, 7]) {
    const items = Array.from({ length: n }, (_, i) => ({ asn: i, prefix: `10.0.${i}.0/24`, comment: i % 2 ? null : `a "quoted", ${i}` }))
    const pieces = [...arrayJsonPieces(items, 3)]
    t.equal(pieces.join(''), JSON.stringify(items), `${n} entries`)
    t.equal(pieces.length, Math.max(1, Math.ceil(n / 3)), `${n} entries: one piece per 3`)
    const taken = [...iterableJsonPieces(items.values(), 3)]
    t.equal(taken.join(''), JSON.stringify(items), `${n} entries taken one at a time`)
    t.equal(taken.length, Math.max(1, Math.ceil(n / 3)), `${n} entries taken one at a time: one piece per 3`)
  }
  const roa = (i: number) => ({ asn: i, prefix: `10.0.${i}.0/24`, max_length: 24, comment: null, roa_objects: [] })
  const s: BgpAnalysisSuggestion = { stale: [roa(1), roa(2), roa(3), roa(4)], not_found: [{ asn: 5, prefix: '11.0.0.0/24' }], keep: [roa(6)] }
  t.equal([...suggestionJsonPieces(s, 3)].join(''), JSON.stringify(s), 'a suggestion')
  t.equal([...suggestionJsonPieces({}, 3)].join(''), '{}', 'an empty suggestion')
})
