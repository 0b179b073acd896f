/**
 * What an operator or a protocol exchange asks of a CA (imperative, style.md §6), and how each appears in the
 * history (spec §2.9: "repository update, parent add, parent entitlements update, received certificate update in a
 * resource class, ROA update with counts of added and removed authorisations").
 */
import type { CommandSummary } from '../eventsourcing.js'
import { decodeCert } from '../objects/cert.js'
import type { ResourceSetText } from '../resources/resource-set.js'
import { fromBase64 } from '../util/base64.js'
import { aspaLine, asList, asText } from './aspas.js'
import { certResources } from './parents.js'
import { idRollCommandSummary, type IdRollCommand } from './id-roll.js'
import { rscSignSummary, type RscSignCommand } from './rsc.js'
import type { ParentInfo, RepoInfo } from './state.js'

/** One class as listed by a parent (RFC 6492 §3.3.2), reduced to what the child keeps. */
export interface Entitlement {
  className: string
  resources: ResourceSetText
  notAfter: string
  /** Where the parent publishes the certificates it issued to us in this class, by our key's SPKI hash (hex). */
  issued: { uri: string; der: string }[]
}

/** Stored in the history: changing these shapes needs a migration. */
export type CaCommand =
  | { type: 'repo-update'; repo: RepoInfo }
  | { type: 'repo-cleanup' }
  | { type: 'parent-add'; parent: ParentInfo }
  | { type: 'parent-update'; parent: ParentInfo }
  | { type: 'parent-remove'; name: string }
  | { type: 'parent-entitlements-update'; parent: string; classes: Entitlement[] }
  | { type: 'certificate-request'; className: string; keyId: string }
  | { type: 'certificate-receive'; parent: string; className: string; keyId: string; cert: string; uri: string }
  | { type: 'key-revoked'; parent: string; className: string; keyId: string }
  | { type: 'child-add'; handle: string; idCert: string; resources: ResourceSetText; selfService?: true }
  | { type: 'child-update'; handle: string; idCert?: string; resources?: ResourceSetText }
  | { type: 'child-remove'; handle: string }
  | { type: 'child-import'; handle: string; idCert: string; resources: ResourceSetText; key: string; sia: { caRepository: string; rpkiManifest: string; rpkiNotify?: string }; className?: string }
  | { type: 'child-certify'; handle: string; className: string; csr: string; limit?: Partial<ResourceSetText> }
  | { type: 'child-revoke'; handle: string; className: string; keyId: string }
  | { type: 'child-suspend'; handle: string; inactive: boolean }
  | { type: 'child-unsuspend'; handle: string }
  | { type: 'roas-update'; added: { asn: number; prefix: string; max_length: number; comment?: string }[]; removed: { asn: number; prefix: string; max_length: number }[] }
  | { type: 'aspas-update'; addOrReplace: { customer: number; providers: number[] }[]; remove: number[] }
  | { type: 'aspa-providers-update'; customer: number; added: number[]; removed: number[] }
  | { type: 'plan-apply'; plan: number; base: string; roas: Omit<Extract<CaCommand, { type: 'roas-update' }>, 'type'>; aspas: Omit<Extract<CaCommand, { type: 'aspas-update' }>, 'type'> }
  | { type: 'change-control-update'; fourEyes: boolean }
  | { type: 'bgpsec-update'; add: { asn: number; csr: string }[]; remove: string[] }
  /** `signer`: the configured signer the new keys are made in (issue 25; absent in older history: default_signer). */
  | { type: 'keyroll-init'; signer?: string }
  | { type: 'keyroll-activate' }
  | { type: 'children-shrink'; reason: string }
  | RscSignCommand
  | { type: 'ta-keyroll-init'; signer?: string }
  | { type: 'ta-keyroll-activate' }
  | { type: 'ta-keyroll-finish' }
  | IdRollCommand

/** The history label and text of a command (krill-reference.md §4: `cmd-ca-*` labels). */
export function commandSummary(c: CaCommand): CommandSummary {
  const s = (label: string, msg: string, args: Record<string, string> = {}): CommandSummary => ({ label: `cmd-ca-${label}`, msg, args })
  switch (c.type) {
    case 'repo-update': return s('repo-update', `Update repository to server '${c.repo.serviceUri}'`, { service_uri: c.repo.serviceUri })
    case 'repo-cleanup': return s('repo-cleanup', 'Clean up the previous repository')
    case 'parent-add': return s('parent-add', `Add parent '${c.parent.name}' as 'RFC 6492 Parent'`, { parent: c.parent.name })
    case 'parent-update': return s('parent-update', `Update contact for parent '${c.parent.name}'`, { parent: c.parent.name })
    case 'parent-remove': return s('parent-remove', `Remove parent '${c.name}'`, { parent: c.name })
    case 'parent-entitlements-update': return s('parent-entitlements', `Update entitlements under parent '${c.parent}': ${c.classes.map((e) => `${e.className} => ${formatResources(e.resources)}`).join('; ') || 'none'}`, { parent: c.parent })
    case 'certificate-request': return s('rc-request', `Request certificate for key '${c.keyId}' in resource class '${c.className}'`, { class_name: c.className, key: c.keyId })
    case 'certificate-receive': return s('rcn-receive', `Update received cert in RC '${c.className}', with resources '${receivedResources(c)}'`, { class_name: c.className, key: c.keyId })
    case 'key-revoked': return s('keyroll-finish', `Parent '${c.parent}' revoked key '${c.keyId}' in resource class '${c.className}'`, { parent: c.parent, key: c.keyId })
    case 'child-add': return s('child-add', `Add child '${c.handle}' with resources '${formatResources(c.resources)}'`, { child: c.handle })
    case 'child-update': return s('child-update', `Update child '${c.handle}'${c.resources ? ` with resources '${formatResources(c.resources)}'` : ''}${c.idCert ? ' with a new id certificate' : ''}`, { child: c.handle })
    case 'child-remove': return s('child-remove', `Remove child '${c.handle}'`, { child: c.handle })
    case 'child-import': return s('child-import', `Import child '${c.handle}' with resources '${formatResources(c.resources)}' and certify its key again`, { child: c.handle })
    case 'child-certify': return s('child-certify', `Issue certificate to child '${c.handle}' in resource class '${c.className}'`, { child: c.handle, class_name: c.className })
    case 'child-suspend': return c.inactive ? s('child-suspend-inactive', `Suspend inactive child '${c.handle}'`, { child: c.handle }) : s('child-suspend', `Suspend child '${c.handle}'`, { child: c.handle })
    case 'child-unsuspend': return s('child-unsuspend', `Unsuspend child '${c.handle}'`, { child: c.handle })
    case 'child-revoke': return s('child-revoke', `Revoke certificate of child '${c.handle}' for key '${c.keyId}'`, { child: c.handle, key: c.keyId })
    case 'roas-update': return s('roas-updated', `Update ROAs add: ${c.added.length} remove: ${c.removed.length}`, { added: String(c.added.length), removed: String(c.removed.length) })
    case 'aspas-update': return aspasUpdateSummary(c, s)
    case 'aspa-providers-update': return s('aspas-update-existing', `Update ASPA providers of ${asText(c.customer)}: add ${asList(c.added) || 'none'}, remove ${asList(c.removed) || 'none'}`, { customer: asText(c.customer), added: asList(c.added), removed: asList(c.removed) })
    case 'bgpsec-update': return bgpSecUpdateSummary(c)
    case 'plan-apply': return s('plan-apply', `Apply plan ${c.plan}: ROAs add: ${c.roas.added.length} remove: ${c.roas.removed.length}; ASPAs add or replace: ${c.aspas.addOrReplace.length} remove: ${c.aspas.remove.length}`, { plan: String(c.plan), added: String(c.roas.added.length), removed: String(c.roas.removed.length) })
    case 'change-control-update': return s('change-control', `${c.fourEyes ? 'Require' : 'Stop requiring'} four-eyes approval of ROA and ASPA changes`, { four_eyes: String(c.fourEyes) })
    case 'keyroll-init': return c.signer === undefined ? s('keyroll-init', 'Initialise key roll for all resource classes') : s('keyroll-init', `Initialise key roll for all resource classes, new keys in signer '${c.signer}'`, { signer: c.signer })
    case 'keyroll-activate': return s('keyroll-activate', 'Activate new keys in all resource classes')
    case 'children-shrink': return s('children-shrink', `Shrink certificates of children: ${c.reason}`)
    case 'rsc-sign': return rscSignSummary(c)
    case 'ta-keyroll-init': return s('ta-keyroll-init', `Initialise a trust anchor key roll: a successor key${c.signer === undefined ? '' : ` in signer '${c.signer}'`} with its own TA certificate, named in the TAK (RFC 9691)`, c.signer === undefined ? {} : { signer: c.signer })
    case 'ta-keyroll-activate': return s('ta-keyroll-activate', 'Activate the successor trust anchor key; children are re-issued under it')
    case 'ta-keyroll-finish': return s('ta-keyroll-finish', 'Retire the previous trust anchor key and withdraw its objects')
    case 'id-roll-init':
    case 'id-roll-finish':
    case 'child-id-confirm':
      return idRollCommandSummary(c)
  }
}

/** krill-reference.md §4: `cmd-ca-aspas-update`, or `cmd-ca-aspas-remove` when the update only removes. */
function aspasUpdateSummary(c: Extract<CaCommand, { type: 'aspas-update' }>, s: (label: string, msg: string, args?: Record<string, string>) => CommandSummary): CommandSummary {
  const args = { added: String(c.addOrReplace.length), removed: String(c.remove.length) }
  const parts = [...c.addOrReplace.map((d) => `add or replace '${aspaLine(d)}'`), ...c.remove.map((x) => `remove '${asText(x)}'`)]
  return s(c.addOrReplace.length === 0 && c.remove.length > 0 ? 'aspas-remove' : 'aspas-update', `Update ASPAs: ${parts.join('; ') || 'nothing'}`, args)
}

/** krill-reference.md §4: `cmd-bgpsec-update`, with the ASes added for and the keys removed. */
function bgpSecUpdateSummary(c: Extract<CaCommand, { type: 'bgpsec-update' }>): CommandSummary {
  const parts = [...c.add.map((a) => `add a router key for ${asText(a.asn)}`), ...c.remove.map((k) => `remove '${k}'`)]
  return { label: 'cmd-bgpsec-update', msg: `Update BGPsec router keys: ${parts.join('; ') || 'nothing'}`, args: { added: String(c.add.length), removed: String(c.remove.length) } }
}

/** The resources of a received certificate, as the history shows them; its URI when it cannot be read. */
function receivedResources(c: { cert: string; uri: string }): string {
  try {
    return formatResources(certResources(decodeCert(fromBase64(c.cert))).toJSON())
  } catch {
    return c.uri
  }
}

function formatResources(r: ResourceSetText): string {
  return [r.asn && `asn: ${r.asn}`, r.ipv4 && `ipv4: ${r.ipv4}`, r.ipv6 && `ipv6: ${r.ipv6}`].filter(Boolean).join(', ') || 'none'
}
