/**
 * components/schemas of the OpenAPI description (openapi.ts): one schema per wire type of api/cas.ts, api/pubd.ts
 * and api/status.ts, with the same name and the same snake_case fields. test/unit/openapi.test.ts checks that the
 * types generated from these schemas and the TypeScript types in api/ are the same.
 */
import { PERMISSIONS } from './access.js'
import type { Reference, Schema, SchemaObject } from './openapi-types.js'
import { AUDIT_SCHEMAS } from './openapi-audit-schemas.js'

//------------ Schema builders -------------------------------------------------------------------------------------

export function ref(name: string): Reference {
  return { $ref: `#/components/schemas/${name}` }
}

const str = (description: string, extra: Partial<SchemaObject> = {}): SchemaObject => ({ type: 'string', description, ...extra })
const int = (description: string, extra: Partial<SchemaObject> = {}): SchemaObject => ({ type: 'integer', description, ...extra })
const asn = (description: string): SchemaObject => int(description, { format: 'int64', minimum: 0, maximum: 4294967295 })
const base64 = (description: string): SchemaObject => str(`${description} (base64)`, { format: 'byte' })
const time = (description: string): SchemaObject => str(description, { format: 'date-time' })
/** Krill's `Timestamp`: whole seconds since the epoch. */
const seconds = (description: string): SchemaObject => int(`${description}, in unix seconds`, { format: 'int64', example: 1767225600 })
const arr = (items: Schema, description?: string): SchemaObject => ({ type: 'array', items, ...(description ? { description } : {}) })
const map = (values: Schema, description: string): SchemaObject => ({ type: 'object', description, additionalProperties: values })
const oneOf = (description: string, ...options: Schema[]): SchemaObject => ({ description, oneOf: options })
const literal = (value: string, description: string): SchemaObject => str(description, { enum: [value] })
/** JSON Schema for "anything" (`{}`): event and command details. */
const anyValue = (description: string): SchemaObject => ({ description })

/**
 * A nullable schema. OpenAPI 3.0 has `nullable`, which needs a `type` and cannot sit beside a `$ref`: a referenced
 * schema (always an object here) is wrapped in `allOf`.
 */
function nullable(s: Schema): SchemaObject {
  return '$ref' in s ? { type: 'object', allOf: [s], nullable: true } : { ...s, nullable: true }
}

/** An object with the given properties, all of them required except those named in `optional`. */
function obj(description: string, properties: Record<string, Schema>, optional: string[] = []): SchemaObject {
  const required = Object.keys(properties).filter((k) => !optional.includes(k))
  return { type: 'object', description, properties, ...(required.length > 0 ? { required } : {}) }
}

const RESOURCES = 'resources in canonical text (style.md §2 rule 4)'

/** total, offset and limit of a paged list (api/paging.ts PageInfo). */
const pageInfo = (what: string): Record<string, Schema> => ({ total: int(`Matching ${what} in all`, { minimum: 0 }), offset: int('Matches skipped', { minimum: 0 }), limit: int('Most rows asked for', { minimum: 1 }) })

//------------ Errors and status -----------------------------------------------------------------------------------

const status: Record<string, Schema> = {
  ErrorBody: obj('The body of every API error (krill-reference.md §1.3); 5xx answers never show details', {
    label: str('Machine-readable error label, e.g. ca-unknown (src/errors.ts catalogue)', { example: 'ca-unknown' }),
    msg: str('Human-readable message', { example: "CA 'ca1' is unknown" }),
    args: map({ type: 'string' }, 'The values filled into the message'),
    delta_error: map(arr(ref('DeltaRoaJson')), 'Only with ca-roa-delta-error: the refused ROAs by problem (duplicates, notheld, unknowns, invalid_length), as Krill lists them'),
  }, ['delta_error']),
  DeltaRoaJson: obj('A refused ROA of a delta (Krill: asn, prefix, and max_length when it is not the prefix length)', {
    asn: int('The AS number', { example: 65000 }),
    prefix: str('The prefix', { example: '10.0.0.0/20' }),
    max_length: int('The max length, when it is not the prefix length', { example: 24 }),
    reason: str('Why the max length is invalid (invalid_length only; not in Krill)'),
  }, ['max_length', 'reason']),
  ReadyJson: obj('Readiness of the service', {
    ready: { type: 'boolean', description: 'True when the store answers and RRDP and the rsync tree hold everything accepted, or are catching up without a failure' },
    problems: arr(ref('ErrorBody'), 'When not ready: what is wrong (labels sys-store, sys-rrdp-behind, sys-rsync-behind, sys-rsync-publisher, sys-publication-held, sys-rrdp-lag, sys-rsync-lag, sys-stalled)'),
  }, ['problems']),
  ServerInfo: obj('Server version and start time', { version: str('svc version', { example: '0.1.0' }), started: int('Start time in unix seconds') }),
  ClusterInstanceJson: obj('One svcd instance', {
    id: str('instance_id (default <hostname>:<port>)'), url: str("The instance's own address"), role: str('leader or follower', { enum: ['leader', 'follower'] }),
    epoch: int('The leader epoch it last saw (its own when it leads)'), started: seconds('Its start time'), last_heartbeat: seconds('Its last heartbeat'),
    heartbeat_age_seconds: int("Seconds since that heartbeat, by the database's clock"), rrdp_session: str('The RRDP session it serves'),
    rrdp_serial: int('The RRDP serial it serves'), lag: int("Serials behind the leader's"),
  }, ['rrdp_session', 'rrdp_serial']),
  ClusterJson: obj('The instances on the database', {
    mode: str('single: one svcd on its own database; cluster: several on one PostgreSQL database', { enum: ['single', 'cluster'] }),
    epoch: int('The leader epoch: one more at each change of leader'), leader: str("The leader's id"), this_instance: str('The instance that answered'),
    instances: arr(ref('ClusterInstanceJson'), 'Every instance, by id'),
  }, ['leader']),
  LoggedInUser: obj("A web client's session (Krill's LoggedInUser): the token to send from now on, the user and its attributes", {
    token: str('Bearer token for the following requests'),
    id: str('The user', { example: 'admin-token' }),
    attributes: map({ type: 'string' }, 'Attributes of the user, e.g. {"role": "admin"}'),
  }),
  WhoAmIJson: obj('Who the caller is and what their role allows (GET /api/v1/whoami, api/access.ts)', {
    id: str('The user id: admin-token for the admin token, the user of a session, the owner of an API token', { example: 'joe@example.com' }),
    provider: str('How the caller authenticated', { enum: ['admin-token', 'config-file', 'openid-connect', 'api-token'] }),
    role: str('The name of the role', { example: 'readonly' }),
    permissions: arr(str("A permission (Krill's names)", { enum: [...PERMISSIONS] }), 'The permissions of the role, in Krill\'s order'),
    cas: nullable(arr(str('A CA handle'), 'The CAs the role is limited to, or null for all')),
    token: nullable(str('With an API token: its name')),
  }),
  OpenApiDocumentJson: {
    ...obj('This OpenAPI description', {
      openapi: str('OpenAPI version of the document', { example: '3.0.3' }),
      info: { ...obj('Title and version of the description', { title: str('Title'), version: str('Version of this description (not of svc)') }), additionalProperties: true },
      paths: { type: 'object', description: 'The described paths', additionalProperties: true },
    }),
    additionalProperties: true,
  },
}

//------------ Shared parts ----------------------------------------------------------------------------------------

const shared: Record<string, Schema> = {
  ResourceSet: {
    ...obj(`IP and AS resources, ${RESOURCES}; an empty string means none. On input v4 and v6 are accepted for ipv4 and ipv6 (as rpki-rs reads them)`, { asn: str('AS numbers and ranges, both ends of a range with AS as Krill writes them (AS65000-AS65010); AS65000-65010 is accepted on input'), ipv4: str('IPv4 prefixes and ranges'), ipv6: str('IPv6 prefixes and ranges') }),
    example: { asn: 'AS65000-AS65010', ipv4: '10.0.0.0/8, 192.168.0.0/16', ipv6: '2001:db8::/32' },
  },
  IdCertInfo: obj('An RFC 8183 identity (BPKI) certificate', {
    public_key: base64('The SubjectPublicKeyInfo, DER'),
    base64: base64('The certificate, DER'),
    hash: str('Hex SHA-256 of the SubjectPublicKeyInfo (spec §2.1 "Hash")'),
  }),
  RepoInfo: obj('Where a CA publishes', { sia_base: str('rsync URI of the CA\'s directory (ends with /)'), rrdp_notification_uri: str('RRDP notification URI (may be empty)') }),
  IssueJson: obj('A failure of a parent exchange or repository sync', { label: str('Error label'), msg: str('Message'), args: map({ type: 'string' }, 'Message values') }),
  ExchangeJson: obj('The last exchange with a parent or repository', {
    timestamp: seconds('When'),
    uri: str('Service URI'),
    result: oneOf('Success, or the failure', literal('Success', 'The exchange succeeded'), obj('The exchange failed', { Failure: ref('IssueJson') })),
  }),
}

//------------ CAs, parents, children, ROAs, repository, history (api/cas.ts) --------------------------------------

const cas: Record<string, Schema> = {
  CaList: obj('All CAs', { cas: arr(obj('A CA', { handle: str('CA handle') })) }),
  CasPageJson: obj('A page of the CAs matching a search', { ...pageInfo('CAs'), cas: arr(obj('A CA', { handle: str('CA handle') })) }),
  AddCaJson: obj('A new CA', { handle: str('CA handle: a-z, A-Z, 0-9, - and _ (spec §8)', { pattern: '^[a-zA-Z0-9_-]{1,255}$' }) }),
  KeyInfoJson: obj('A key of a resource class', {
    key_id: str('Key identifier (hex SHA-1 of the public key)'),
    signer: str('The configured signer that holds the key (svcd; absent when unknown)'),
    incoming_cert: nullable(obj('The certificate received from the parent', { cert: base64('Certificate, DER'), uri: str('rsync URI where the parent publishes it'), resources: ref('ResourceSet') })),
    request: nullable(obj('A pending certificate request', { time: time('When it was sent') })),
  }, ['signer']),
  ResourceClassInfo: obj('One resource class received from a parent', {
    name_space: str('Class name'),
    parent_handle: str('Local name of the parent'),
    keys: map(map(ref('KeyInfoJson'), 'Keys by role: active_key, pending_key, new_key, old_key'), 'Keys by key-roll state (active, pending, roll-new, roll-pending, roll-old)'),
    current_objects: arr({ type: 'string' }, 'File names of the objects published under the current key'),
  }),
  CertAuthInfo: obj('CA details (spec §2.1)', {
    handle: str('CA handle'),
    id_cert: ref('IdCertInfo'),
    id_cert_pending: ref('IdCertInfo'),
    repo_info: nullable(ref('RepoInfo')),
    parents: arr(obj('A parent', { handle: str('Local parent name'), kind: literal('rfc6492', 'Protocol') })),
    resources: ref('ResourceSet'),
    resource_classes: map(ref('ResourceClassInfo'), 'Resource classes by name'),
    children: arr({ type: 'string' }, 'Child handles'),
    suspended_children: arr({ type: 'string' }, 'Suspended child handles'),
  }, ['id_cert_pending']),
  ChildRequestJson: obj('An RFC 8183 child_request as JSON', { child_handle: str('Child handle'), id_cert: base64('Identity certificate, DER'), tag: nullable(str('Optional tag')) }),
  ParentResponseJson: obj('An RFC 8183 parent_response as JSON', {
    id_cert: base64('Parent identity certificate, DER'),
    parent_handle: str('Parent handle'),
    child_handle: str('Child handle'),
    service_uri: str('RFC 6492 service URI'),
    tag: nullable(str('Optional tag')),
  }),
  AddParentJson: obj('A parent to add or update: the local name and the parent response (`contact` is accepted as an alias of `response`)', {
    handle: str('Local parent name'),
    response: ref('ParentResponseJson'),
  }),
  ParentContactJson: obj('Contact details of a parent', {
    type: literal('rfc6492', 'Protocol'),
    service_uri: str('RFC 6492 service URI'),
    parent_handle: str('Parent handle'),
    child_handle: str('Our handle at the parent'),
    id_cert: ref('IdCertInfo'),
  }),
  ParentStatusJson: obj('Exchange status and entitlements of a parent', {
    last_exchange: nullable(ref('ExchangeJson')),
    last_success: nullable(seconds('Last successful exchange')),
    all_resources: ref('ResourceSet'),
    classes: arr(obj('An entitlement', { class_name: str('Parent class name'), resource_set: ref('ResourceSet'), not_after: time('Validity end of the certificate') })),
  }),
  AddChildJson: obj('A child to add', { handle: str('Child handle'), resources: ref('ResourceSet'), id_cert: base64('Child identity certificate, DER') }),
  UpdateChildJson: obj('Changes to a child: new identity certificate, new resources, suspension', { id_cert: base64('New identity certificate, DER'), resources: ref('ResourceSet'), suspend: { type: 'boolean', description: 'true: suspend (its certificates are withdrawn); false: unsuspend (new certificates are issued)' } }, ['id_cert', 'resources', 'suspend']),
  ChildInfoJson: obj('A child', { state: str('Child state: suspended while inactive (or by an operator)', { enum: ['active', 'suspended'] }), id_cert: ref('IdCertInfo'), entitled_resources: ref('ResourceSet') }),
  ChildRowJson: obj('A child in the list (GET …/children): ChildInfoJson without the identity certificate', { handle: str('Child handle'), state: str('Child state', { enum: ['active', 'suspended'] }), entitled_resources: ref('ResourceSet') }),
  ChildrenPageJson: obj('A page of the children matching a search, sorted', { ...pageInfo('children'), children: arr(ref('ChildRowJson'), 'The rows') }),
  RoaJson: {
    ...obj('A ROA authorisation', { asn: int('Origin AS number', { minimum: 0, maximum: 4294967295 }), prefix: str('IP prefix'), max_length: int('Max length (default: the prefix length)'), comment: nullable(str('Comment')) }, ['max_length', 'comment']),
    example: { asn: 65000, prefix: '10.0.0.0/24', max_length: 24, comment: 'office' },
  },
  RoaDeltaJson: obj('ROA changes, applied all or nothing (spec §2.8)', { added: arr(ref('RoaJson'), 'To add'), removed: arr(ref('RoaJson'), 'To remove') }),
  RoaObjectJson: obj('A published ROA object (Krill RoaInfo). Given in full once in the whole listing, at the first authorisation it carries; at the others it carries (an aggregated ROA) a reference without authorizations and base64', {
    authorizations: arr({ type: 'string' }, 'Payloads it carries, as prefix[-max] => asn (only where given in full)'),
    validity: obj('EE certificate validity', { not_before: time('Start'), not_after: time('End') }),
    serial: str('EE certificate serial'),
    uri: str('rsync URI'),
    base64: base64('The object, DER (only where given in full)'),
    hash: str('Hex SHA-256 of the object'),
  }, ['authorizations', 'base64']),
  ConfiguredRoa: obj('A configured ROA authorisation with the objects carrying it', {
    asn: int('Origin AS number'),
    prefix: str('IP prefix'),
    max_length: int('Max length'),
    comment: nullable(str('Comment')),
    roa_objects: arr(ref('RoaObjectJson')),
  }),
  RoaRowJson: obj('One row of the console ROA table (GET …/routes/page)', {
    asn: int('Origin AS number'),
    prefix: str('IP prefix'),
    max_length: int('Max length'),
    comment: nullable(str('Comment')),
    roa_objects: int('ROA objects carrying it', { minimum: 0 }),
  }),
  RoasPageJson: obj('A page of the ROAs matching a search, sorted', { ...pageInfo('authorisations'), items: arr(ref('RoaRowJson'), 'The rows') }),
  BgpAnalysisState: str("Krill's BgpAnalysisState: roa_* of a configured ROA, announcement_* of a BGP announcement inside the CA's resources; without BGP data svcd reports only roa_no_announcement_info and roa_not_held", {
    enum: ['roa_seen', 'roa_redundant', 'roa_unseen', 'roa_disallowing', 'roa_too_permissive', 'roa_as0', 'roa_as0_redundant', 'roa_not_held', 'announcement_valid', 'announcement_invalid_length', 'announcement_invalid_asn', 'announcement_disallowed', 'announcement_not_found', 'roa_no_announcement_info'],
  }),
  AnnouncementJson: obj("A BGP announcement seen by RIPE RIS (Krill's Announcement)", { asn: int('Origin AS number'), prefix: str('Announced prefix') }),
  RoaPayloadJson: obj("A ROA payload (Krill's RoaPayload, with an explicit max length)", { asn: int('Origin AS number'), prefix: str('IP prefix'), max_length: int('Max length') }),
  BgpAnalysisEntry: obj("One entry of Krill's BGP analysis report: a configured ROA (roa_* states, with the ConfiguredRoa fields) or an announcement inside the CA's resources (announcement_* states: asn and prefix), its state, and the related announcements and ROAs where there are any", {
    asn: int('Origin AS number'),
    prefix: str('IP prefix'),
    max_length: int('Max length (ROA entries)'),
    comment: nullable(str('Comment (ROA entries)')),
    roa_objects: arr(ref('RoaObjectJson'), 'The objects carrying it (ROA entries; none in a dry run)'),
    state: ref('BgpAnalysisState'),
    allowed_by: ref('RoaPayloadJson'),
    disallowed_by: arr(ref('RoaPayloadJson'), 'announcement_invalid_*, announcement_disallowed: every ROA covering it'),
    made_redundant_by: arr(ref('RoaPayloadJson'), 'roa_redundant: the ROAs including it; roa_as0_redundant: the ROAs covering its prefix'),
    authorizes: arr(ref('AnnouncementJson'), 'Announcements this ROA makes valid'),
    disallows: arr(ref('AnnouncementJson'), 'Announcements this ROA makes invalid (an AS0 ROA: all it covers)'),
  }, ['max_length', 'comment', 'roa_objects', 'allowed_by', 'disallowed_by', 'made_redundant_by', 'authorizes', 'disallows']),
  ReplacementRoaSuggestionJson: obj('A too permissive ROA (RFC 9319) and the specific ROAs for the announcements only it authorises', { current: ref('ConfiguredRoa'), new: arr(ref('RoaPayloadJson')) }),
  BgpAnalysisSuggestion: obj("Krill's BGP analysis suggestion; empty lists are left out, so without BGP data it is {\"keep\": [the held ROAs]}", {
    stale: arr(ref('ConfiguredRoa'), 'ROAs for no seen announcement: remove'),
    not_found: arr(ref('AnnouncementJson'), 'Announcements no ROA covers: authorise'),
    invalid_asn: arr(ref('AnnouncementJson'), 'Announcements invalid for their origin: authorise if intended'),
    invalid_length: arr(ref('AnnouncementJson'), 'Announcements too specific for their ROAs: authorise if intended'),
    too_permissive: arr(ref('ReplacementRoaSuggestionJson'), 'ROAs to replace by specific ones'),
    disallowing: arr(ref('ConfiguredRoa'), 'ROAs that only make announcements invalid (a wrong ASN? else AS0)'),
    redundant: arr(ref('ConfiguredRoa'), 'ROAs included in full by others: remove'),
    not_held: arr(ref('ConfiguredRoa'), 'ROAs for prefixes the CA does not hold'),
    as0_redundant: arr(ref('ConfiguredRoa'), 'AS0 ROAs made redundant by ROAs for real ASNs: remove'),
    keep: arr(ref('ConfiguredRoa'), 'ROAs to keep'),
    keep_disallowing: arr(ref('AnnouncementJson'), 'Announcements disallowed by AS0 ROAs'),
  }, ['stale', 'not_found', 'invalid_asn', 'invalid_length', 'too_permissive', 'disallowing', 'redundant', 'not_held', 'as0_redundant', 'keep', 'keep_disallowing']),
  AspaDefinitionJson: obj('An ASPA definition (krill-reference.md §1.1 "ASPA"): one ASPA object per customer AS', { customer: asn('Customer AS number'), providers: arr(asn('Provider AS number'), 'Ascending in listings; AS0 alone means no provider') }),
  AspaDefinitionUpdatesJson: obj('ASPA definitions to add or replace and customers to remove, all or nothing', { add_or_replace: arr(ref('AspaDefinitionJson')), remove: arr(asn('Customer AS number')) }),
  BgpSecCsrInfoJson: obj('A BGPsec router key (krill-reference.md §1.1 "BGPsec")', { asn: asn('AS number of the router'), key_identifier: str('Router key identifier, 40 upper-case hex digits'), csr: base64("The router's PKCS#10 request (DER)") }),
  BgpSecDefinitionUpdatesJson: obj('Router keys to add (from requests) and to remove (by name), all or nothing', {
    add: arr(obj('A router request', { asn: asn('AS number of the router'), csr: base64('PKCS#10 request (DER) with an ECDSA P-256 key, signed by it') })),
    remove: arr(str('Router key name: ROUTER-<asn as 8 hex digits>-<key identifier>', { pattern: '^ROUTER-[0-9A-Fa-f]{8}-[0-9A-Fa-f]{40}$' })),
  }),
  RscSignJson: obj('A checklist to sign (RFC 9323): file names with their digests, never the files', {
    files: arr(obj('A file', { name: str("RFC 9323 §4.4 PortableFilename: a-z, A-Z, 0-9, '.', '_', '-'", { pattern: '^[a-zA-Z0-9._-]{1,255}$' }), sha256: str('SHA-256 of the file, 64 hex digits', { pattern: '^[0-9a-fA-F]{64}$' }) })),
    resources: obj(`Resources of the checklist, ${RESOURCES}; default: all the current key holds`, { asn: str('AS numbers'), ipv4: str('IPv4 prefixes or ranges'), ipv6: str('IPv6 prefixes or ranges') }, ['asn', 'ipv4', 'ipv6']),
    validity_days: int('Days the EE certificate is valid (never beyond the CA certificate); default 365', { minimum: 1, maximum: 3650 }),
  }, ['resources', 'validity_days']),
  RscSignedJson: obj('A signed checklist', {
    rsc: base64('The RSC: a CMS signed object, DER'),
    resources: ref('ResourceSet'),
    not_before: time('EE certificate notBefore'),
    not_after: time('EE certificate notAfter'),
    serial: str('EE certificate serial number, decimal'),
  }),
  AspaProvidersUpdateJson: obj('Providers to add to and remove from one customer', { added: arr(asn('Provider AS number')), removed: arr(asn('Provider AS number')) }),
  RepoInfoJson: obj('Repository configuration of a CA (spec §2.6)', {
    contact: nullable(obj('The repository in use', {
      type: str('Embedded publication server or a remote one', { enum: ['embedded', 'remote'] }),
      repo_info: ref('RepoInfo'),
      server_info: obj('The publication server', { public_key: base64('Server public key'), service_uri: str('RFC 8181 service URI') }),
    })),
  }),
  RepoStatusJson: obj('What the repository holds for the CA (a real RFC 8181 list)', {
    last_exchange: nullable(ref('ExchangeJson')),
    last_success: nullable(seconds('Last successful sync')),
    published: arr(obj('A published object', { uri: str('rsync URI'), hash: str('Hex SHA-256') })),
  }),
  RepoUpdateJson: oneOf('The RFC 8183 repository_response of the new repository, bare or wrapped', obj('Wrapped', { repository_response: ref('RepositoryResponseJson') }), ref('RepositoryResponseJson')),
  CaIssuesJson: obj('Current issues of a CA', {
    repo_issue: nullable(ref('IssueJson')),
    parent_issues: arr(obj('A parent issue', { parent: str('Parent name'), issue: ref('IssueJson') })),
    objects_issue: nullable(ref('IssueJson')),
  }, ['objects_issue']),
  BulkIssuesJson: obj('Issues of all CAs that have any, and of the embedded publication server', {
    cas: map(ref('CaIssuesJson'), 'Issues by CA handle'),
    publication_server: arr(ref('ErrorBody'), 'Only when the embedded publication server has problems (sys-rrdp-behind, sys-rsync-behind, sys-rsync-publisher, sys-publication-held, sys-rrdp-lag, sys-rsync-lag), with reasons'),
    signers: arr(ref('ErrorBody'), 'Only when a configured signer cannot sign now (sys-signer-unavailable, sys-signer-login, sys-signer-slow): args name the signer and the reason (never the PIN), and since when'),
    quarantined: arr(ref('QuarantinedJson'), 'Only when something was set aside because what is stored cannot be decoded or run (issue 26): see GET /api/v1/quarantine'),
    stalled: arr(ref('ErrorBody'), 'Only when a part of svcd stopped making progress (sys-stalled: scheduler, publication, leadership, pacer)'),
  }, ['publication_server', 'signers', 'quarantined', 'stalled']),
  HistoryRecordJson: obj('One command in the history of a CA', {
    actor: str('Who ran it: a user id, admin-token, svc (svcd itself), child:<handle> (a child\'s RFC 6492 request)…'),
    actor_provider: str('How the actor authenticated: admin-token, config-file, openid-connect, api-token, testbed, or svc (not in Krill)'),
    actor_token: nullable(str('The name of the API token used, or null (not in Krill)')),
    timestamp: int('Milliseconds since the epoch'),
    handle: str('CA handle'),
    version: int('The action key (svcc action --key)'),
    summary: obj('What was done', { msg: str('Message'), label: str('Command label'), args: map({ type: 'string' }, 'Arguments') }),
    effect: oneOf('Events applied, or the error', obj('Succeeded', { Ok: arr({ type: 'string' }, 'Event summaries') }), obj('Failed', { Error: str('Error message') })),
  }),
  CommandHistoryJson: obj('A page of the history of a CA', { offset: int('Rows skipped'), total: int('Total matching rows'), commands: arr(ref('HistoryRecordJson')) }),
  CommandDetailsJson: obj('One command with its events', {
    actor: str('Who ran it: a user id, admin-token, svc (svcd itself), child:<handle> (a child\'s RFC 6492 request)…'),
    actor_provider: str('How the actor authenticated: admin-token, config-file, openid-connect, api-token, testbed, or svc (not in Krill)'),
    actor_token: nullable(str('The name of the API token used, or null (not in Krill)')),
    time: time('When'),
    handle: str('CA handle'),
    version: int('The action key'),
    msg: str('Summary'),
    details: anyValue('The command as stored'),
    effect: oneOf('Events applied, or the error',
      obj('Succeeded', { result: literal('success', 'Result'), events: arr(obj('An event', { msg: str('Summary'), details: anyValue('The event as stored') })) }),
      obj('Failed', { result: literal('error', 'Result'), msg: str('Error message') })),
  }),
}

//------------ Publication server (api/pubd.ts) --------------------------------------------------------------------

const pubd: Record<string, Schema> = {
  PublisherRequestJson: obj('An RFC 8183 publisher_request as JSON', { publisher_handle: str('Publisher handle'), id_cert: base64('Identity certificate, DER'), tag: nullable(str('Optional tag')) }, ['tag']),
  RepositoryResponseJson: obj('An RFC 8183 repository_response as JSON', {
    publisher_handle: str('Publisher handle'),
    id_cert: base64('Publication server identity certificate, DER'),
    service_uri: str('RFC 8181 service URI'),
    repo_info: ref('RepoInfo'),
    tag: nullable(str('Optional tag')),
  }),
  PublisherList: obj('Publishers', { publishers: arr(obj('A publisher', { handle: str('Publisher handle') })) }),
  PublisherRowJson: obj('A publisher in a paged list, with its figures', {
    handle: str('Publisher handle'),
    objects: int('Objects it has published', { minimum: 0 }),
    size: int('Their size in bytes', { minimum: 0 }),
    last_update: nullable(time('When it last published')),
    stale: { type: 'boolean', description: 'Only with ?stale=<seconds>: it has not published for that long (a never-published one counts from its creation)' },
  }, ['stale']),
  PublishersPageJson: obj('A page of the publishers matching a search, sorted', { ...pageInfo('publishers'), publishers: arr(ref('PublisherRowJson'), 'The rows') }),
  PublisherDetails: obj('A publisher and its published files', {
    handle: str('Publisher handle'),
    id_cert: ref('IdCertInfo'),
    base_uri: str('rsync jail of the publisher'),
    current_files: arr(obj('A file', { uri: str('rsync URI'), base64: base64('Content') })),
    self_service: { type: 'boolean', description: 'Registered through the testbed self-service (its quota is the self-service one)' },
    quota: obj('What it may hold', { objects: int('Objects'), bytes: int('Bytes in total'), object_bytes: int('Bytes of its largest object') }),
  }),
  PublisherStatsJson: obj('Statistics of one publisher', {
    objects: int('Number of objects'),
    size: int('Total size in bytes'),
    last_update: nullable(time('Last publication')),
    manifests: arr(obj('A manifest', { uri: str('rsync URI'), this_update: time('thisUpdate'), next_update: time('nextUpdate') })),
    problem: nullable(ref('ErrorBody')),
    self_service: { type: 'boolean', description: 'Registered through the testbed self-service (its quota is the self-service one)' },
    quota: obj('What it may hold', { objects: int('Objects'), bytes: int('Bytes in total'), object_bytes: int('Bytes of its largest object') }),
  }),
  SharedQuotaJson: obj('A quota shared by several publishers, and what they use of it', { objects: int('Objects allowed'), bytes: int('Bytes allowed'), used_objects: int('Objects held'), used_bytes: int('Bytes held') }),
  RepoStats: obj('Publication server statistics', {
    publishers: map(ref('PublisherStatsJson'), 'By publisher handle'),
    session: str('RRDP session id'),
    serial: int('RRDP serial'),
    last_update: time('Last RRDP update'),
    rsync_base: str('rsync base URI'),
    rrdp_base: str('RRDP base URI'),
    problems: arr(ref('ErrorBody'), 'What keeps RRDP or the rsync tree from holding everything accepted, with the reasons (args.reason)'),
    quota: ref('SharedQuotaJson'),
    self_service_quota: ref('SharedQuotaJson'),
  }),
}

/** Every schema, by name (the names of the TypeScript types in api/ where there is one). */
/** The embedded trust anchor's key roll (api/ta.ts). */
const taKeyFields: Record<string, Schema> = { key_id: str('Key identifier, 40 upper-case hex digits'), uris: arr(str('URI'), 'https URI, then rsync URI of its certificate'), tal_uri: str('Where its TAL is served'), signer: str('The configured signer that holds the key (absent when unknown)') }
const taKey = (description: string, more: Record<string, Schema> = {}) => obj(description, { ...taKeyFields, ...more }, ['tal_uri', 'signer'])
const ta: Record<string, Schema> = {
  TaKeyRollJson: obj('The embedded trust anchor\'s keys (RFC 9691 TA key roll)', {
    state: str('active, roll_new (a successor waits for activation) or roll_old (the previous key is still published)', { enum: ['active', 'roll_new', 'roll_old'] }),
    current: taKey('The current key'),
    next: taKey('The successor key'),
    old: taKey('The previous key', { retire_at: time('When it is retired and its objects withdrawn') }),
    old_key_seconds: int('Seconds the previous key stays published after activation'),
  }, ['next', 'old']),
}

export const SCHEMAS: Record<string, Schema> = { ...status, ...shared, ...cas, ...pubd, ...ta, ...AUDIT_SCHEMAS }
