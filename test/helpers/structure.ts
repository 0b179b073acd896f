/**
 * Krill's CA structure import test data (issue 27): krill:test-resources/bulk-ca-import/structure.json (the tree of
 * krill:tests/functional_ca_import.rs) with a daemon's own TA and repository URIs, and ASPAs (svcd's addition).
 *
 *        ta
 *        |
 *      parent
 *      /    \
 *   child1  child2
 *      \    /
 *     grandchild (two parents)
 */
import type { RepoDaemon } from './cas.js'

/** Krill's test-resources/bulk-ca-import/structure.json, with svcd's own URIs and ASPAs. */
export function krillStructure(d: RepoDaemon): Record<string, unknown> {
  return {
    ta: { ta_aia: `${d.rsyncBase}ta/ta.cer`, ta_uri: `${d.url}ta/ta.cer` },
    publication_server: { rrdp_base_uri: `${d.url}rrdp/`, rsync_jail: d.rsyncBase },
    cas: [
      { handle: 'parent', parent: { handle: 'ta', resources: { asn: 'AS65000-AS65535', ipv4: '10.0.0.0/8, 192.168.0.0/16', ipv6: 'fc00::/7' } } },
      {
        handle: 'child1',
        parent: { handle: 'parent', resources: { asn: 'AS65000', ipv4: '192.168.0.0/16', ipv6: 'fc00::/56' } },
        roas: [
          { asn: 65000, prefix: '192.168.0.0/23', max_length: 24, comment: 'my precious route' },
          { asn: 65001, prefix: '192.168.2.0/23', max_length: 23, comment: null },
          { asn: 65000, prefix: 'fc00::/56' },
        ],
        aspas: [{ customer: 65000, providers: [65002, 65001] }],
      },
      { handle: 'child2', parent: { handle: 'parent', resources: { asn: 'AS65001', ipv4: '10.0.0.0/16', ipv6: '' } } },
      {
        handle: 'grandchild',
        parent: [
          { handle: 'child1', resources: { asn: 'AS65000', ipv4: '192.168.0.0/24', ipv6: '' } },
          { handle: 'child2', resources: { asn: 'AS65001', ipv4: '10.0.0.0/24', ipv6: '' } },
        ],
        roas: [{ asn: 65000, prefix: '192.168.0.0/24' }, { asn: 65001, prefix: '10.0.0.0/24' }],
        aspas: [{ customer: 65001, providers: [65000] }],
      },
    ],
  }
}

/** The VRPs and ASPAs the structure lists, as rp-validate's --expect and --expect-aspa files write them. */
export const STRUCTURE_VRPS = ['AS65000,192.168.0.0/23,24', 'AS65001,192.168.2.0/23,23', 'AS65000,fc00::/56,56', 'AS65000,192.168.0.0/24,24', 'AS65001,10.0.0.0/24,24']
export const STRUCTURE_ASPAS = ['AS65000,AS65001 AS65002', 'AS65001,AS65000']

