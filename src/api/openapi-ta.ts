/**
 * The embedded trust anchor's key roll in the OpenAPI description (RFC 9691; http/routes/ta.ts): the key listing and
 * the init/activate actions under /api/v1/ta/keyroll, and the public successor TAL and per-key certificates.
 */
import { binary, empty, json, route, type DescribedRoute } from './openapi-operations.js'
import { KEY_ROLL_INIT_BODY, KEY_ROLL_SIGNER_REFUSALS } from './openapi-signers.js'

export function taRoutes(): DescribedRoute[] {
  const tag = 'trust-anchor'
  const refusals = 'Refused (key-roll-disallowed, nothing changed): init during a roll or while the previous key is still published, activate without a successor. 404 ca-unknown without [testbed].'
  return [
    route('get', '/ta/keyroll', { id: 'taKeyRoll', tag, summary: "The embedded trust anchor's keys", ok: json('TaKeyRollJson', 'Current key, and during a TA key roll the successor or the previous key') }),
    route('post', '/ta/keyroll/init', {
      id: 'taKeyRollInit', tag, summary: 'Start a TA key roll (RFC 9691)', ok: empty('Successor key created and published'), body: KEY_ROLL_INIT_BODY,
      description: `With a body naming a signer, the successor key is made there (${KEY_ROLL_SIGNER_REFUSALS.split('. A key roll')[0]}). A successor key with its own self-signed TA certificate (at ta-<KEYID>.cer beside ta.cer), its manifest, CRL and a TAK naming the current key as predecessor; the current key's TAK names it as successor. Its TAL is served at /ta/ta-next.tal. ${refusals}`,
    }),
    route('post', '/ta/keyroll/activate', {
      id: 'taKeyRollActivate', tag, summary: 'Activate the successor TA key', ok: empty('Successor key current'),
      description: `The successor becomes current: children are re-issued under it, /ta/ta.tal serves its TAL. The previous key and its objects stay published for [testbed] ta_keyroll_old_key_seconds, then are withdrawn (a history entry of CA ta). ${refusals}`,
    }),
    route('get', '/ta/ta-next.tal', { id: 'taNextTal', tag: 'repository-files', summary: "TAL of the trust anchor's successor key during a TA key roll (RFC 9691)", description: 'Served only once the successor certificate (ta-<KEYID>.cer) is in both the RRDP output (the current serial) and the rsync tree, with the same bytes; 404 api-unknown-resource before, and when no roll is in progress (issue 26).', ok: { description: 'The TAL', content: { 'text/plain': { schema: { type: 'string' } } } }, errors: ['404', '500'] }, 'public'),
    route('get', '/ta/ta-{key_id}.cer', { id: 'taKeyCert', tag: 'repository-files', summary: "Certificate of a later trust anchor key, named after its key id (40 upper-case hex digits); the first key's is /ta/ta.cer", ok: binary('application/pkix-cert', 'The certificate, DER'), errors: ['404', '500'] }, 'public'),
  ]
}
