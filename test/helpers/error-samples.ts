/** Sample arguments for the golden error bodies in fixtures/errors/ (one per catalogue label). */
import { CATALOGUE, type ErrorLabel } from '../../src/errors.js'

const SAMPLES: Record<string, string> = {
  ca: 'ca1',
  child: 'child1',
  parent: 'parent1',
  publisher: 'pub1',
  path: '/api/v1/example',
  method: 'PATCH',
  reason: 'example reason',
  content_type: 'text/plain',
  expected: 'application/json',
  limit: '262144',
  handle: 'bad/handle',
  seconds: 'ten',
  name: 'rows',
  uri: 'rsync://localhost/repo/pub1/x.cer',
  jail: 'rsync://localhost/repo/pub1/',
  resources: 'asn: AS65000, ipv4: , ipv6: ',
  roa: '10.0.0.0/24-20 => 65000',
  key: '1234',
  action: 'activate',
  feature: 'example feature',
  class_name: '0',
  time: '2027-06-01T00:00:00.000Z',
  retry_after: '6',
  customer: 'AS65000',
  asn: 'AS65000',
  providers: 'AS65001',
  max: '100',
  what: 'publishers',
  permission: 'routes-update',
  plan: '7',
  status: 'applied',
  user: 'alice',
  count: '3',
  version: '12',
  kind: 'roas',
  format: 'CSV',
  problems: 'line 3: prefix: 10.0.0.1/24 has host bits set (the prefix would be 10.0.0.0/24)',
  step: "add parent 'parent'",
  created: 'ta, parent',
  cas: 'ta, testbed',
  signer: 'hsm1',
  known: 'OpenSSL, hsm1',
  operation: 'C_Sign',
  ms: '2000',
  webhook: 'ops',
}

/** The placeholders of a label's template, filled with sample values. */
export function sampleArgs(label: ErrorLabel): Record<string, string> {
  const args: Record<string, string> = {}
  for (const m of CATALOGUE[label].msg.matchAll(/\{([a-z_]+)\}/g)) args[m[1]] = SAMPLES[m[1]] ?? `example ${m[1]}`
  return args
}
