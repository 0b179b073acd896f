/**
 * Every route of svcd as an OpenAPI operation, in the order of http/routes/*.ts: /api/v1 paths relative to the API
 * server (krill-reference.md §1.1 and the spec §4 table), then the public endpoints. operationIds are the service
 * method names. test/unit/openapi.test.ts fails when a router has a route missing here, or this list one too many.
 */
import { binary, binaryBody, empty, json, jsonBody, jsonOrXmlBody, route, xml, type DescribedRoute, type OperationSpec } from './openapi-operations.js'
import { ref } from './openapi-schemas.js'
import { taRoutes } from './openapi-ta.js'
import { auditRoutes } from './openapi-audit.js'
import { tokenRoutes } from './openapi-tokens.js'
import { planRoutes } from './openapi-plans.js'
import { identityRoutes } from './openapi-identity.js'
import { roaIoRoutes } from './openapi-roa-io.js'
import { importRoutes } from './openapi-import.js'
import { childTransferRoutes } from './openapi-child-transfer.js'
import { KEY_ROLL_INIT_BODY, KEY_ROLL_SIGNER_REFUSALS, signerRoutes } from './openapi-signers.js'
import { alertRoutes } from './openapi-alerts.js'
import { healthRoutes } from './openapi-health.js'
import { quarantineRoutes } from './openapi-quarantine.js'
import type { Parameter, Response } from './openapi-types.js'
import { ROA_SORTS, ROAS_PAGE_DEFAULT, ROAS_PAGE_MAX, ROAS_QUERY_MAX, TOTAL_COUNT_HEADER } from './cas.js'
import { CA_SORTS, CHILD_SORTS, LIST_PAGE_DEFAULT, LIST_PAGE_MAX, LIST_QUERY_MAX, PUBLISHER_SORTS } from './paging.js'
import { RSC_MAX_VALIDITY_DAYS } from './rsc.js'

const get = (path: string, spec: OperationSpec) => route('get', path, spec)
const post = (path: string, spec: OperationSpec) => route('post', path, spec)
const del = (path: string, spec: OperationSpec) => route('delete', path, spec)

function caRoutes(): DescribedRoute[] {
  const tag = 'ca'
  return [
    get('/cas', {
      id: 'caList', tag, summary: 'List the CAs; searched and paged with paging parameters', params: listParams(CA_SORTS, 'the handle'),
      ok: json({ anyOf: [ref('CaList'), ref('CasPageJson')], description: "Without any paging parameter Krill's CaList; with them a CasPageJson" }, 'CAs'),
      description: 'Krill answers every CA as {"cas":[{"handle"}]}, and so does svcd without parameters. With offset, limit, q, sort or order: a page of the matches by handle, with total, offset and limit. Bad parameters: 400 api-invalid-query.',
    }),
    post('/cas', { id: 'caAdd', tag, summary: 'Add a CA', body: jsonBody('AddCaJson', 'The new CA'), ok: empty('Added') }),
    get('/cas/{ca}', { id: 'caShow', tag, summary: 'Show a CA', ok: json('CertAuthInfo', 'CA details') }),
    del('/cas/{ca}', { id: 'caDelete', tag, summary: 'Delete a CA', description: 'Revokes its certificates at its parents and withdraws its objects first.', ok: empty('Deleted') }),
    get('/cas/{ca}/child_request.json', { id: 'caChildRequest', tag, summary: "The CA's RFC 8183 child request", ok: json('ChildRequestJson', 'Child request as JSON') }),
    get('/cas/{ca}/id/child_request.json', { id: 'caChildRequestId', tag, summary: 'Alias of child_request.json', ok: json('ChildRequestJson', 'Child request as JSON') }),
    get('/cas/{ca}/id/child_request.xml', { id: 'caChildRequestXml', tag, summary: "The CA's RFC 8183 child request as XML", ok: xml('<child_request> document') }),
    get('/cas/{ca}/id/publisher_request.json', { id: 'caPublisherRequest', tag, summary: "The CA's RFC 8183 publisher request", ok: json('PublisherRequestJson', 'Publisher request as JSON') }),
    get('/cas/{ca}/id/publisher_request.xml', { id: 'caPublisherRequestXml', tag, summary: "The CA's RFC 8183 publisher request as XML", ok: xml('<publisher_request> document') }),
  ]
}

function parentRoutes(): DescribedRoute[] {
  const tag = 'parents'
  const body = jsonOrXmlBody('AddParentJson', 'The parent', 'parent_response')
  return [
    get('/cas/{ca}/parents', { id: 'caParentStatuses', tag, summary: 'Exchange status of all parents', ok: json({ type: 'object', additionalProperties: ref('ParentStatusJson') }, 'Status by parent name') }),
    post('/cas/{ca}/parents', {
      id: 'caParentAdd', tag, summary: 'Add a parent', body, ok: empty('Added'),
      description: 'svcd first asks the parent (an RFC 6492 list); a parent that cannot be reached, or answers for another child, is refused (ca-parent-issue) and nothing changes. With XML, the parent is named after the parent_handle.',
    }),
    post('/cas/{ca}/parents/{parent}', {
      id: 'caParentUpdate', tag, summary: 'Add or update a parent', body, ok: empty('Added or updated'),
      description: "Krill's add-or-update: a parent of that name that does not exist yet is added, one that does gets the new response (the same response again changes nothing). The name in a JSON body must equal the one in the path; RFC 8183 XML (also sent as text/plain) takes the name from the path. As with POST …/parents, the parent is asked first (ca-parent-issue).",
    }),
    get('/cas/{ca}/parents/{parent}', { id: 'caParentContact', tag, summary: 'Contact details of a parent', ok: json('ParentContactJson', 'Parent contact') }),
    del('/cas/{ca}/parents/{parent}', { id: 'caParentRemove', tag, summary: 'Remove a parent', description: 'Its certificates are revoked at the parent first.', ok: empty('Removed') }),
    post('/cas/{ca}/sync/parents', { id: 'caSyncParents', tag, summary: 'Sync with all parents now', ok: empty('Synced') }),
  ]
}

function childRoutes(): DescribedRoute[] {
  const tag = 'children'
  const response = json('ParentResponseJson', 'The RFC 8183 parent response for the child')
  return [
    post('/cas/{ca}/children', { id: 'caChildAdd', tag, summary: 'Add a child', body: jsonBody('AddChildJson', 'The child'), ok: response }),
    get('/cas/{ca}/children', {
      id: 'caChildren', tag, summary: 'The children, searched, sorted and paged', params: listParams(CHILD_SORTS, 'the handle and the resources'), ok: json('ChildrenPageJson', 'The matching children, one page'),
      description: "Not in Krill (which lists the children's handles in GET /cas/{ca}): for the web console and long lists. Sort by handle (default) or state (active first). Bad parameters: 400 api-invalid-query.",
    }),
    get('/cas/{ca}/children/{child}', { id: 'caChildInfo', tag, summary: 'Id and resources of a child', ok: json('ChildInfoJson', 'The child') }),
    post('/cas/{ca}/children/{child}', { id: 'caChildUpdate', tag, summary: 'Update the resources and/or identity certificate of a child', body: jsonBody('UpdateChildJson', 'The changes'), ok: empty('Updated') }),
    del('/cas/{ca}/children/{child}', { id: 'caChildRemove', tag, summary: 'Remove a child', description: 'Its certificates are revoked.', ok: empty('Removed') }),
    get('/cas/{ca}/children/{child}/contact', { id: 'caChildContact', tag, summary: 'The parent response for a child', ok: response }),
    get('/cas/{ca}/children/{child}/parent_response.json', { id: 'caChildParentResponse', tag, summary: 'Alias of contact', ok: response }),
    get('/cas/{ca}/children/{child}/parent_response.xml', { id: 'caChildContactXml', tag, summary: 'The parent response for a child as XML', ok: xml('<parent_response> document') }),
  ]
}

function roaAndRepoRoutes(): DescribedRoute[] {
  return [
    get('/cas/{ca}/routes', {
      id: 'caRoas', tag: 'roas', summary: 'Configured ROAs, a page at a time', params: roasPage(), ok: roasPageAnswer(),
      description: `Krill's array of ConfiguredRoa, in payload order (family, address, prefix length, max length, ASN). Each ROA object is given in full (authorizations, base64) once in the whole listing, at the first authorisation it carries; the other authorisations it carries (an aggregated ROA, one per ASN) refer to it by uri and hash. Krill answers the whole list; svcd answers ${ROAS_PAGE_DEFAULT} authorisations by default (at most ${ROAS_PAGE_MAX}): the ${TOTAL_COUNT_HEADER} header gives the total, and a Link header the next page while there is one. Bad offset or limit: 400 api-invalid-query.`,
    }),
    post('/cas/{ca}/routes', {
      id: 'caRoasUpdate', tag: 'roas', summary: 'Apply a ROA delta', body: jsonBody('RoaDeltaJson', 'ROAs to add and remove'), ok: empty('Applied'),
      description: 'All or nothing: any problem refuses the whole delta with ca-roa-delta-error, whose body lists the problems in `delta_error`. One change (one history entry) however large the delta; the body may be up to post_limit_api_routes bytes (32 MiB by default: 50,000 and more authorisations), not post_limit_api.',
    }),
    get('/cas/{ca}/routes/page', {
      id: 'caRoasQuery', tag: 'roas', summary: 'Search, sort and page the configured ROAs', params: roasQuery(), ok: json('RoasPageJson', 'The matching ROAs, one page'),
      description: 'For the web console and `svcc roas search`: light rows (no objects), matched and sorted on the server, so a page stays fast for a CA with 50,000 ROAs. Bad parameters: 400 api-invalid-query.',
    }),
    get('/cas/{ca}/routes/analysis/full', {
      id: 'caRoutesAnalysis', tag: 'roas', summary: 'BGP analysis of the configured ROAs', ok: json({ type: 'array', items: ref('BgpAnalysisEntry') }, "Krill's BgpAnalysisReport"),
      description: "Every configured ROA (with its objects) and every BGP announcement inside the CA's resources, with Krill's states, in Krill's state order. The announcements are RIPE RIS whois dumps (config bgp_riswhois_*), loaded in the background; until a dump is loaded, or without one, every ROA is roa_no_announcement_info, or roa_not_held when the CA does not hold its prefix. roa_too_permissive follows RFC 9319: a ROA with a max length beyond its prefix length whose authorised prefixes are not all announced.",
    }),
    get('/cas/{ca}/routes/analysis/suggest', { id: 'caRoutesSuggest', tag: 'roas', summary: 'ROA suggestions from BGP data', ok: json('BgpAnalysisSuggestion', 'Without BGP data: {}') }),
    post('/cas/{ca}/routes/analysis/suggest', {
      id: 'caRoutesSuggestScoped', tag: 'roas', summary: 'ROA suggestions for part of the resources', body: jsonBody('ResourceSet', 'Only ROAs and announcements inside these resources'), ok: json('BgpAnalysisSuggestion', 'Without BGP data: {}'),
    }),
    post('/cas/{ca}/routes/analysis/dryrun', {
      id: 'caRoutesDryRun', tag: 'roas', summary: 'BGP analysis of the ROAs a delta would leave', body: jsonBody('RoaDeltaJson', 'ROAs to add and remove'), ok: json({ type: 'array', items: ref('BgpAnalysisEntry') }, "Krill's BgpAnalysisReport (ROA entries without objects)"),
      description: 'Nothing changes. A delta the update would refuse is refused the same way (ca-roa-delta-error with delta_error).',
    }),
    ...aspaRoutes(),
    get('/cas/{ca}/repo', { id: 'caRepo', tag: 'repo', summary: 'Repository configuration', ok: json('RepoInfoJson', 'The repository in use') }),
    post('/cas/{ca}/repo', {
      id: 'caRepoUpdate', tag: 'repo', summary: 'Change the repository', body: jsonOrXmlBody('RepoUpdateJson', 'The new repository', 'repository_response'), ok: empty('Moved'),
      description: 'Spec §3 rule 1: svcd checks the new repository (a real RFC 8181 list) before anything changes, publishes everything there, asks the parents for certificates with the new URIs, then cleans up the old repository.',
    }),
    get('/cas/{ca}/repo/status', { id: 'caRepoStatus', tag: 'repo', summary: 'What the repository holds for the CA', ok: json('RepoStatusJson', 'Published objects, from a real list query') }),
    post('/cas/{ca}/sync/repo', { id: 'caSyncRepo', tag: 'repo', summary: 'Sync with the repository now', ok: empty('Synced') }),
    get('/cas/{ca}/issues', { id: 'caIssues', tag: 'issues', summary: 'Issues of a CA', ok: json('CaIssuesJson', 'Current issues') }),
    post('/cas/{ca}/keys/roll_init', { id: 'caKeyRollInit', tag: 'keys', summary: 'Start a key roll', body: KEY_ROLL_INIT_BODY, description: KEY_ROLL_SIGNER_REFUSALS, ok: empty('New keys created and requested') }),
    post('/cas/{ca}/keys/roll_activate', { id: 'caKeyRollActivate', tag: 'keys', summary: 'Finish a key roll', description: 'Refused while requests are pending (key-roll-pending-requests).', ok: empty('New keys active') }),
  ]
}

/** ASPA definitions (krill-reference.md §1.1 "ASPA"); refusals carry the ca-aspa-* labels and change nothing. */
function aspaRoutes(): DescribedRoute[] {
  const tag = 'aspas'
  const rules = 'Rules (draft-ietf-sidrops-aspa-profile §3.3, Krill): the customer must be held by the CA (ca-aspa-not-entitled), at least one provider (ca-aspa-provider-as-empty), no provider twice (ca-aspa-provider-duplicates), the customer not among its providers (ca-aspa-customer-as-provider), AS0 only alone (ca-aspa-provider-as0).'
  return [
    get('/cas/{ca}/aspas', { id: 'caAspas', tag, summary: 'ASPA definitions', ok: json({ type: 'array', items: ref('AspaDefinitionJson') }, 'The definitions, customer ascending') }),
    post('/cas/{ca}/aspas', {
      id: 'caAspasUpdate', tag, summary: 'Add, replace and remove ASPA definitions', body: jsonBody('AspaDefinitionUpdatesJson', 'Definitions to add or replace, customers to remove'), ok: empty('Applied'),
      description: `All or nothing. A customer appears at most once (ca-aspa-customer-as-duplicate); a removed customer must have a definition (ca-aspa-unknown-customer-as). ${rules}`,
    }),
    post('/cas/{ca}/aspas/as/{customer}', {
      id: 'caAspaProvidersUpdate', tag, summary: 'Add and remove providers of one customer', body: jsonBody('AspaProvidersUpdateJson', 'Providers to add and remove'), ok: empty('Applied'),
      description: `Adding to a customer without a definition creates it (with nothing to add: ca-aspa-unknown-customer-as); removing every provider removes the definition; adding a present or removing an absent provider changes nothing. ${rules}`,
    }),
    get('/cas/{ca}/bgpsec', { id: 'caBgpSecList', tag: 'bgpsec', summary: 'BGPsec router keys', ok: json({ type: 'array', items: ref('BgpSecCsrInfoJson') }, 'The router keys, by AS and key identifier') }),
    post('/cas/{ca}/bgpsec', {
      id: 'caBgpSecUpdate', tag: 'bgpsec', summary: 'Add and remove BGPsec router keys', body: jsonBody('BgpSecDefinitionUpdatesJson', 'Requests to add, keys to remove'), ok: empty('Applied'),
      description: 'All or nothing. The CA issues and publishes an RFC 8209 router certificate for each key whose AS it holds, re-issued on key rolls and before expiry. Refused: a request that cannot be read or has no ECDSA P-256 key (ca-bgpsec-csr-invalid), one not signed by its key (ca-bgpsec-invalidly-signed), an AS the CA does not hold (ca-bgpsec-not-entitled), removing an unknown key (ca-bgpsec-unknown).',
    }),
    del('/cas/{ca}/aspas/as/{customer}', { id: 'caAspaRemove', tag, summary: "Remove a customer's ASPA definition", description: 'Its ASPA object is withdrawn. Unknown customer: ca-aspa-unknown-customer-as.', ok: empty('Removed') }),
  ]
}

/** Signed checklists (RFC 9323): svc's own; refusals carry the ca-rsc-* labels and sign nothing. */
function rscRoutes(): DescribedRoute[] {
  return [
    post('/cas/{ca}/rsc', {
      id: 'caRscSign', tag: 'rsc', summary: 'Sign a checklist of file digests (RFC 9323 RSC)', body: jsonBody('RscSignJson', 'File names with their SHA-256 digests; resources and validity optional'), ok: json('RscSignedJson', 'The RSC, base64 DER: save it as a .sig file'),
      description: `Only digests cross the API: the files stay with the operator. The CA signs under its current key with a one-off EE certificate holding exactly the resources asked for (default: all that key holds), without SIA; the RSC is not published. Validity: validity_days (1 to ${RSC_MAX_VALIDITY_DAYS}, default 365), never beyond the CA certificate. The history records the file names and resources, not the digests. Refused, nothing signed: no files (ca-rsc-checklist-empty), a name that is not an RFC 9323 §4.4 PortableFilename, a digest that is not 64 hex digits or a name given twice (ca-rsc-file-invalid), resources that do not parse or are empty (ca-rsc-resources-invalid), not held (ca-rsc-not-entitled) or held under different keys (ca-rsc-resources-split), no current certified key (ca-rsc-no-certificate).`,
    }),
  ]
}

/** ?offset=&limit= of GET …/routes (api/cas.ts ROAS_PAGE_DEFAULT). */
function roasPage(): Parameter[] {
  return [
    { name: 'offset', in: 'query', description: 'Authorisations to skip (default 0)', required: false, schema: { type: 'integer', minimum: 0 } },
    { name: 'limit', in: 'query', description: `Authorisations to return (default ${ROAS_PAGE_DEFAULT}, at most ${ROAS_PAGE_MAX})`, required: false, schema: { type: 'integer', minimum: 1, maximum: ROAS_PAGE_MAX } },
  ]
}

/** ?offset=&limit=&q=&sort=&order= of GET …/routes/page. */
function roasQuery(): Parameter[] {
  return listParams(ROA_SORTS, `\`<prefix>-<max length> => AS<asn>\` or the comment (at most ${ROAS_QUERY_MAX} characters)`, { dflt: 100, max: ROAS_PAGE_MAX, first: 'prefix: the listing order' })
}

/** The paging parameters of a list (api/paging.ts): offset, limit, q (looking in `where`), sort (the first key by default), order. */
function listParams(sorts: readonly string[], where: string, limits: { dflt: number; max: number; first?: string } = { dflt: LIST_PAGE_DEFAULT, max: LIST_PAGE_MAX }): Parameter[] {
  return [
    { name: 'offset', in: 'query', description: 'Matches to skip (default 0)', required: false, schema: { type: 'integer', minimum: 0 } },
    { name: 'limit', in: 'query', description: `Rows to return (default ${limits.dflt}, at most ${limits.max})`, required: false, schema: { type: 'integer', minimum: 1, maximum: limits.max } },
    { name: 'q', in: 'query', description: `Case-insensitive text in ${where}${where.endsWith(')') ? '' : ` (at most ${LIST_QUERY_MAX} characters)`}`, required: false, schema: { type: 'string' } },
    { name: 'sort', in: 'query', description: `Sort key (default ${limits.first ?? sorts[0]})`, required: false, schema: { type: 'string', enum: [...sorts] } },
    orderParam('asc (default) or desc'),
  ]
}

function orderParam(description: string): Parameter {
  return { name: 'order', in: 'query', description, required: false, schema: { type: 'string', enum: ['asc', 'desc'] } }
}

function roasPageAnswer(): Response {
  return {
    ...json({ type: 'array', items: ref('ConfiguredRoa') }, 'A page of the ROA configuration with the objects carrying it'),
    headers: {
      [TOTAL_COUNT_HEADER]: { description: 'Configured authorisations in all', schema: { type: 'integer', minimum: 0 } },
      Link: { description: 'RFC 8288 `<…/routes?offset=N&limit=M>; rel="next"` while there are more', schema: { type: 'string' } },
    },
  }
}

/** GET …/history/commands[/{rows}[/{offset}[/{after}[/{before}]]]] (krill-reference.md §4), each with ?full. */
function historyRoutes(): DescribedRoute[] {
  const params: Parameter[] = [
    { name: 'full', in: 'query', description: 'Include publication entries', required: false, schema: { type: 'boolean' } },
    { name: 'q', in: 'query', description: `Only actions whose label, message or actor hold this text, case-insensitive (at most ${LIST_QUERY_MAX} characters; not in Krill)`, required: false, schema: { type: 'string' } },
    orderParam('asc (default: oldest first, as Krill) or desc (newest first; the offset counts from the newest; not in Krill)'),
  ]
  const variants: [id: string, suffix: string, which: string][] = [
    ['caHistory', '', 'the newest 100 rows'],
    ['caHistoryRows', '/{rows}', 'rows'],
    ['caHistoryRowsOffset', '/{rows}/{offset}', 'rows, offset'],
    ['caHistoryAfter', '/{rows}/{offset}/{after}', 'rows, offset, after'],
    ['caHistoryBetween', '/{rows}/{offset}/{after}/{before}', 'rows, offset, after, before'],
  ]
  const page = json('CommandHistoryJson', 'A page of the history, oldest first unless ?order=desc')
  return [
    ...variants.map(([id, suffix, which]) => get(`/cas/{ca}/history/commands${suffix}`, { id, tag: 'history', summary: `History of a CA (${which})`, params, ok: page })),
    get('/cas/{ca}/history/details/{key}', { id: 'caHistoryDetails', tag: 'history', summary: 'One command with its events', ok: json('CommandDetailsJson', 'The command') }),
  ]
}

function bulkRoutes(): DescribedRoute[] {
  const tag = 'bulk'
  return [
    get('/bulk/cas/issues', { id: 'bulkIssues', tag: 'issues', summary: 'Issues of all CAs', ok: json('BulkIssuesJson', 'CAs with issues') }),
    post('/bulk/cas/publish', { id: 'bulkPublish', tag, summary: 'All CAs re-issue objects where needed, then sync', ok: empty('Done') }),
    post('/bulk/cas/sync/parent', { id: 'bulkRefresh', tag, summary: 'All CAs ask their parents for updates', ok: empty('Started') }),
    post('/bulk/cas/sync/repo', { id: 'bulkSyncRepo', tag, summary: 'All CAs sync with their repository', ok: empty('Done') }),
  ]
}

function pubdRoutes(): DescribedRoute[] {
  const tag = 'publication-server'
  const response = json('RepositoryResponseJson', 'The RFC 8183 repository response for the publisher')
  return [
    get('/pubd/publishers', {
      id: 'pubdPublishers', tag, summary: 'List the publishers; searched, sorted and paged with paging parameters',
      params: [...listParams(PUBLISHER_SORTS, 'the handle'), { name: 'stale', in: 'query', description: 'Mark each row stale when it has not published for this many seconds (as GET /pubd/stale/{seconds})', required: false, schema: { type: 'integer', minimum: 0 } }],
      ok: json({ anyOf: [ref('PublisherList'), ref('PublishersPageJson')], description: 'Without any paging parameter (or stale) Krill\'s PublisherList; with them a PublishersPageJson' }, 'Publishers'),
      description: 'Krill answers every publisher as {"publishers":[{"handle"}]}, and so does svcd without parameters. With offset, limit, q, sort, order or stale: a page of the matches with their figures (objects, size, last update), sorted by handle (default), objects, size or last_update. Bad parameters: 400 api-invalid-query.',
    }),
    post('/pubd/publishers', { id: 'pubdPublisherAdd', tag, summary: 'Add a publisher', body: jsonOrXmlBody('PublisherRequestJson', 'The publisher', 'publisher_request'), ok: response }),
    get('/pubd/publishers/{publisher}', { id: 'pubdPublisherShow', tag, summary: 'A publisher and its files', ok: json('PublisherDetails', 'The publisher') }),
    del('/pubd/publishers/{publisher}', { id: 'pubdPublisherRemove', tag, summary: 'Remove a publisher and withdraw its files', ok: empty('Removed') }),
    get('/pubd/publishers/{publisher}/response.json', { id: 'pubdPublisherResponse', tag, summary: 'The repository response of a publisher', ok: response }),
    get('/pubd/publishers/{publisher}/response.xml', { id: 'pubdPublisherResponseXml', tag, summary: 'The repository response of a publisher as XML', ok: xml('<repository_response> document') }),
    get('/pubd/stale/{seconds}', { id: 'pubdStale', tag, summary: 'Publishers that have not published for this long', ok: json('PublisherList', 'Stale publishers') }),
    get('/pubd/stats', { id: 'pubdStats', tag, summary: 'Publication server statistics', ok: json('RepoStats', 'Statistics') }),
    post('/pubd/session_reset', { id: 'pubdSessionReset', tag, summary: 'Start a new RRDP session', ok: empty('Reset') }),
    post('/pubd/release', { id: 'pubdRelease', tag, summary: 'Release output the safety floor holds back', ok: empty('Released') }),
  ]
}

function statusRoutes(): DescribedRoute[] {
  return [
    get('/authorized', { id: 'authorized', tag: 'status', summary: 'Check the bearer token', ok: empty('The token is valid') }),
    get('/whoami', {
      id: 'whoAmI', tag: 'status', summary: 'Who the bearer token is: the user, how they logged in, their role, its permissions and the CAs it is limited to', ok: json('WhoAmIJson', 'The caller'),
      description: 'Not in Krill. Any caller with a valid token may ask (a session, the admin token or an API token). The web console hides what the role cannot do by it; svcd still checks every request.',
    }),
    get('/cluster', { id: 'cluster', tag: 'status', summary: 'The svcd instances on this database: role, epoch, last heartbeat, RRDP serial served and lag behind the leader (one, the leader, on SQLite)', ok: json('ClusterJson', 'The instances') }),
    get('/openapi.json', { id: 'openApi', tag: 'status', summary: 'This OpenAPI description', ok: json('OpenApiDocumentJson', 'The description') }),
  ]
}

/** The endpoints relative to the host: all public (no bearer token) but /metrics. */
function publicRoutes(): DescribedRoute[] {
  const updown = 'application/rpki-updown'
  const publication = 'application/rpki-publication'
  const conditional = (name: string, description: string): Parameter => ({ name, in: 'header', description, required: false, schema: { type: 'string' } })
  return [
    route('get', '/health', { id: 'health', tag: 'status', summary: 'Health check (no token): the process and its store are alive', ok: empty('Healthy'), errors: ['503'] }, 'public'),
    route('get', '/ready', {
      id: 'ready', tag: 'status', summary: 'Readiness (no token): 200 {"ready": true} when the store answers and RRDP and the rsync tree hold everything accepted or are catching up without a failure; 503 with the problems otherwise',
      ok: json('ReadyJson', 'Ready: {"ready": true}'), more: { '503': json('ReadyJson', 'Not ready: {"ready": false, "problems": [...]}, labels and args only (the reasons are in the log and the pubd stats)') }, errors: ['500'],
    }, 'public'),
    route('get', '/stats/info', { id: 'serverInfo', tag: 'status', summary: "Server version and start time (no token, as Krill: its web UI's footer)", ok: json('ServerInfo', 'Version and start time'), errors: ['500'] }, 'public'),
    route('get', '/metrics', {
      id: 'metrics', tag: 'status', summary: 'Prometheus metrics, text format 0.0.4 (without the token when metrics_public = true)',
      ok: { description: 'The metrics', content: { 'text/plain': { schema: { type: 'string' } } } }, errors: ['401', '500'],
    }, 'host'),
    route('post', '/rfc6492/{ca}', {
      id: 'rfc6492', tag: 'protocols', summary: 'RFC 6492 up-down message from a child (also with a trailing /)', body: binaryBody(updown, 'CMS-signed RFC 6492 message'), ok: binary(updown, 'CMS-signed reply; protocol problems are an error_response'),
      errors: ['400', '404', '413', '415', '500'],
    }, 'public'),
    route('post', '/rfc8181/{publisher}', {
      id: 'rfc8181', tag: 'protocols', summary: 'RFC 8181 publication message from a publisher (also with a trailing /)', body: binaryBody(publication, 'CMS-signed RFC 8181 message'), ok: binary(publication, 'CMS-signed reply; protocol problems are a report_error'),
      errors: ['400', '413', '415', '500'],
    }, 'public'),
    route('get', '/rrdp/{file}', {
      id: 'rrdpFile', tag: 'repository-files', summary: 'An RRDP file (RFC 8182)', ok: xml('The notification (max-age 60) or a snapshot or delta (immutable)'), more: { '304': { description: 'Not modified (ETag or Last-Modified)' } },
      params: [conditional('If-None-Match', 'ETag of a copy held'), conditional('If-Modified-Since', 'Date of a copy held')], errors: ['404', '500'],
    }, 'public'),
    route('get', '/ta/ta.tal', { id: 'taTal', tag: 'repository-files', summary: 'Trust anchor locator of the testbed TA (RFC 8630)', description: 'Served only once the certificate it names is in both the RRDP output (the current serial) and the rsync tree, with the same bytes; 404 api-unknown-resource before (issue 26).', ok: { description: 'The TAL', content: { 'text/plain': { schema: { type: 'string' } } } }, errors: ['404', '500'] }, 'public'),
    route('get', '/ta/ta.cer', { id: 'taCert', tag: 'repository-files', summary: 'Certificate of the testbed TA', ok: binary('application/pkix-cert', 'The certificate, DER'), errors: ['404', '500'] }, 'public'),
  ]
}

/** Krill's login endpoints for web clients (http/routes/auth.ts) and the testbed self-service (routes/testbed.ts). */
function krillClientRoutes(): DescribedRoute[] {
  const text = (description: string): Response => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } })
  const testbed = (method: 'get' | 'post' | 'delete', path: string, spec: Omit<OperationSpec, 'tag'>) => route(method, `/testbed${path}`, { tag: 'testbed', ...spec }, 'public')
  const write = ['400', '404', '413', '429', '500', '503', '507'] as const
  return [
    route('get', '/auth/login', {
      id: 'authLoginUrl', tag: 'auth', summary: 'Where the login page is (no token)', ok: text("The relative URL of the login page (/login), or with OpenID Connect the provider's authorization URL for a new login"),
      errors: ['401', '500'],
      description: "With OpenID Connect, 401 `api-auth-transient-error` while the provider has not answered discovery. The provider then sends the browser back to GET /auth/callback (served with `auth_type = \"openid-connect\"` only, and not described here: it only redirects), which redirects to /ui/login/callback with the one-time HttpOnly cookie `svc_login` (Path=/auth, 120 s) that POST /auth/login `{\"exchange\": true}` trades for the session, or to /ui/login?error=<label>.",
    }, 'public'),
    route('post', '/auth/login', { id: 'authLogin', tag: 'auth', summary: 'Log in: the admin token as a bearer token, a config-file user by HTTP Basic credentials, or (OpenID Connect) the body {"exchange": true} with the svc_login cookie', ok: json('LoggedInUser', 'The session: {"token", "id", "attributes": {"role"}}'), errors: ['401', '403', '413', '429', '500'] }, 'public'),
    route('post', '/auth/logout', { id: 'authLogout', tag: 'auth', summary: "Log out: ends the bearer token's session", ok: text('Where to go next: /, or the provider\'s logout page'), errors: ['413', '500'] }, 'public'),
    testbed('get', '/enabled', { id: 'testbedEnabled', summary: 'Whether the testbed self-service is on (no token)', ok: empty('On'), errors: ['404', '429', '500'] }),
    testbed('post', '/children', {
      id: 'testbedChildAdd', summary: 'Register a child of CA testbed (no token)', body: jsonBody('AddChildJson', 'The child, as for POST /api/v1/cas/testbed/children'), ok: json('ParentResponseJson', 'The RFC 8183 parent response for the child'), errors: [...write],
      description: 'The same checks and errors as the authenticated API. Rate-limited per source address ([testbed] self_service_per_minute); 404 when [testbed] is off.',
    }),
    testbed('delete', '/children/{child}', { id: 'testbedChildRemove', summary: 'Remove a child of CA testbed (no token)', description: 'Never one that is a CA of this svcd (403).', ok: empty('Removed'), errors: ['400', '403', '404', '429', '500', '503', '507'] }),
    testbed('post', '/publishers', {
      id: 'testbedPublisherAdd', summary: 'Register a publisher in the embedded repository (no token)', body: jsonBody('PublisherRequestJson', 'The RFC 8183 publisher request as JSON'), ok: json('RepositoryResponseJson', 'The RFC 8183 repository response'), errors: [...write],
    }),
    testbed('delete', '/publishers/{publisher}', { id: 'testbedPublisherRemove', summary: 'Remove a publisher of the embedded repository (no token)', description: 'Never the repository of a CA of this svcd (403).', ok: empty('Removed'), errors: ['400', '403', '404', '429', '500', '503', '507'] }),
  ]
}

/** Every described route. */
export const ROUTES: DescribedRoute[] = [
  ...caRoutes(), ...parentRoutes(), ...childRoutes(), ...roaAndRepoRoutes(), ...rscRoutes(), ...historyRoutes(), ...bulkRoutes(), ...pubdRoutes(), ...statusRoutes(), ...publicRoutes(), ...krillClientRoutes(), ...taRoutes(), ...auditRoutes(), ...tokenRoutes(), ...planRoutes(), ...roaIoRoutes(), ...importRoutes(), ...childTransferRoutes(), ...identityRoutes(), ...signerRoutes(), ...healthRoutes(), ...alertRoutes(), ...quarantineRoutes(),
]
