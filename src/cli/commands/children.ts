/** `svcc children …`: our side as parent (RFC 6492 server): add, info, update, remove, response. */
import type { CommandDef, OptionDef } from '../command.js'

const child: OptionDef = { flags: '--child <name>', description: 'name of the child CA', required: true }
const resources: OptionDef[] = [
  { flags: '-a, --asn <resources>', description: 'AS resources, e.g. "AS1, AS3-4"' },
  { flags: '-4, --ipv4 <resources>', description: 'IPv4 resources, e.g. "10.0.0.0/8, 192.168.0.0-192.168.1.255"' },
  { flags: '-6, --ipv6 <resources>', description: 'IPv6 resources, e.g. "2001:db8::/32"' },
]

export const childrenCommands: CommandDef[] = [
  {
    path: ['children', 'add'],
    summary: 'Add a child; prints the RFC 8183 parent response (XML, or the API JSON with --format json)',
    options: [child, { flags: '--request <file>', description: "the child's RFC 8183 child request XML", required: true }, ...resources],
  },
  { path: ['children', 'info'], summary: 'Show the id and resources of a child', options: [child] },
  {
    path: ['children', 'update'],
    summary: 'Update the resources (full replacement) or the id certificate of a child',
    options: [child, ...resources, { flags: '--idcert <file>', description: "the child's new DER encoded id certificate" }],
  },
  { path: ['children', 'remove'], summary: 'Remove a child: its certificates are revoked', options: [child] },
  { path: ['children', 'response'], summary: 'Show the RFC 8183 parent response for a child', options: [child] },
]
