/**
 * AppError and the one error catalogue of the service (style.md §7; labels and statuses as Krill's,
 * krill-reference.md §1.3). Every label has a message template and a golden body in fixtures/errors/<label>.json.
 * Domain code throws AppError; http/errors.ts turns it into a status and a {label,msg,args} body.
 */

interface CatalogueEntry {
  readonly status: number
  /** Message template: `{name}` is replaced by `args.name`. */
  readonly msg: string
  /** A 5xx whose message is shown to clients: it holds no internals (Koa's `expose`). */
  readonly expose?: true
}

/** The catalogue: label → HTTP status and message template. 400 is the default status; sys-* is always 5xx. */
export const CATALOGUE = {
  // api-*: bad requests at the HTTP level
  'api-invalid-credentials': { status: 401, msg: 'Invalid credentials: {reason}' },
  // Names what is missing (issue 24): the permission, and the CA when the request is about one.
  'api-insufficient-rights': { status: 403, msg: "Insufficient rights: this needs the permission {permission}[ on CA '{ca}']" },
  'api-login-error': { status: 401, msg: 'Login failed: {reason}' },
  'api-auth-transient-error': { status: 401, msg: 'The login provider cannot be reached now: {reason}' },
  'api-unknown-resource': { status: 404, msg: "Unknown API path '{path}'" },
  'api-unknown-method': { status: 405, msg: "Method {method} is not allowed for '{path}'" },
  'api-json': { status: 400, msg: 'Invalid JSON in request body: {reason}' },
  'api-invalid-body': { status: 400, msg: 'Invalid request body: {reason}' },
  'api-unexpected-body': { status: 400, msg: 'This request takes no body' },
  'api-unsupported-media-type': { status: 415, msg: "Unsupported content type '{content_type}', expected '{expected}'" },
  'api-post-body-exceeds-limit': { status: 413, msg: 'Request body exceeds the limit of {limit} bytes' },
  'api-post-body-cannot-read': { status: 400, msg: 'Cannot read the request body: {reason}' },
  'api-invalid-path': { status: 400, msg: 'Invalid request path: {reason}' },
  'api-invalid-path-handle': { status: 400, msg: "Invalid handle '{handle}' in path: {reason}" },
  'api-invalid-path-seconds': { status: 400, msg: "Invalid number of seconds '{seconds}' in path" },
  'api-invalid-query': { status: 400, msg: "Invalid value for '{name}': {reason}" },
  'api-invalid-utf8': { status: 400, msg: 'Request body is not valid UTF-8' },
  // scoped API tokens (app/access/token-service.ts)
  'api-token-duplicate': { status: 400, msg: "'{owner}' already has an API token named '{name}'" },
  'api-token-unknown': { status: 404, msg: "Unknown API token '{id}'" },
  'api-rate-limited': { status: 429, msg: 'Too many requests from this address (at most {limit} a minute): retry in {retry_after} seconds' },
  'api-rate-limited-login': { status: 429, msg: 'Too many failed logins from this address or for this user: retry in {retry_after} seconds' },
  // ca-*: certificate authorities
  'ca-unknown': { status: 404, msg: "CA '{ca}' is unknown" },
  'ca-duplicate': { status: 400, msg: "CA '{ca}' was already initialised" },
  'ca-handle-invalid': { status: 400, msg: "Invalid CA handle: {reason}" },
  'ca-child-unknown': { status: 404, msg: "CA '{ca}' does not have a child named '{child}'" },
  'ca-child-duplicate': { status: 400, msg: "CA '{ca}' already has a child named '{child}'" },
  'ca-child-resources-required': { status: 400, msg: 'A child must be given at least some resources' },
  'ca-child-resources-invalid': { status: 400, msg: "Invalid resources for child '{child}': {reason}" },
  'ca-child-resources-extra': { status: 400, msg: "Child '{child}' cannot have resources not held by CA '{ca}': {resources}" },
  'ca-child-unauthorized': { status: 400, msg: "CA '{ca}' does not accept this message for child '{child}': {reason}" },
  'ca-child-request-invalid-xml': { status: 400, msg: 'Invalid RFC 8183 child request: {reason}' },
  // Moving a delegated child between parents (Krill's child export and import; app/ca/child-transfer.ts)
  'ca-child-import-handle-mismatch': { status: 400, msg: "The child name '{name}' in the body does not match the child '{child}' in the path" },
  'ca-child-import-invalid': { status: 400, msg: "CA '{ca}' cannot import child '{child}': {reason}" },
  'ca-child-export-unsupported': { status: 400, msg: "Child '{child}' of CA '{ca}' cannot be exported: {reason}" },
  'ca-parent-unknown': { status: 404, msg: "CA '{ca}' does not have a parent named '{parent}'" },
  'ca-parent-duplicate': { status: 400, msg: "CA '{ca}' already has a parent named '{parent}'" },
  'ca-parent-response-invalid-xml': { status: 400, msg: 'Invalid RFC 8183 parent response: {reason}' },
  'ca-parent-response-wrong-xml': { status: 400, msg: 'Expected an RFC 8183 parent response, got {reason}' },
  'ca-parent-issue': { status: 400, msg: "CA '{ca}' had an issue with parent '{parent}': {reason}" },
  'ca-parent-sync': { status: 400, msg: "CA '{ca}' could not sync with parent '{parent}': {reason}" },
  'ca-parent-xml-duplicate': { status: 400, msg: "CA '{ca}' already has parent '{parent}' with the same response" },
  'ca-cert-expired': { status: 400, msg: "The certificate of CA '{ca}' for key {key} in resource class '{class_name}' expired at {time}: its objects are renewed when parent '{parent}' issues a new one" },
  'ca-repo-issue': { status: 400, msg: "CA '{ca}' cannot use the repository at '{uri}': {reason}" },
  'ca-repo-response-invalid-xml': { status: 400, msg: 'Invalid RFC 8183 repository response: {reason}' },
  'ca-repo-response-wrong-xml': { status: 400, msg: 'Expected an RFC 8183 repository response, got {reason}' },
  'ca-repo-same': { status: 400, msg: "CA '{ca}' already uses this repository" },
  'ca-repo-rrdp-foreign': { status: 400, msg: "The response of this server's publisher '{publisher}' for CA '{ca}' names RRDP notification URI '{uri}', but this server's is '{expected}'" },
  // Krill's current message (krill:src/commons/error.rs RoaDeltaError): the refused ROAs follow, by problem (deltaLines).
  'ca-roa-delta-error': { status: 400, msg: 'ROA delta rejected:' },
  'ca-roa-invalid-max-length': { status: 400, msg: "Invalid max length in '{roa}': {reason}" },
  'ca-roa-delta-syntax': { status: 400, msg: 'Invalid ROA delta: {reason}' },
  'ca-aspa-not-entitled': { status: 400, msg: "Customer {customer} of the ASPA is not held by CA '{ca}'" },
  'ca-aspa-customer-as-duplicate': { status: 400, msg: 'Customer {customer} appears more than once in the ASPA update' },
  'ca-aspa-customer-as-provider': { status: 400, msg: 'Customer {customer} cannot be one of its own ASPA providers' },
  'ca-aspa-provider-as-empty': { status: 400, msg: 'The ASPA of customer {customer} needs at least one provider (AS0 for none)' },
  'ca-aspa-provider-duplicates': { status: 400, msg: 'The ASPA of customer {customer} lists providers more than once: {providers}' },
  'ca-aspa-provider-as0': { status: 400, msg: 'The ASPA of customer {customer} lists AS0 (no provider) together with other providers' },
  'ca-aspa-unknown-customer-as': { status: 400, msg: "CA '{ca}' has no ASPA for customer {customer}" },
  'ca-bgpsec-csr-invalid': { status: 400, msg: 'The router certificate request for {asn} cannot be used: {reason}' },
  'ca-bgpsec-invalidly-signed': { status: 400, msg: 'The router certificate request for {asn} is not signed by its key: {reason}' },
  'ca-bgpsec-not-entitled': { status: 400, msg: "{asn} of the router certificate is not held by CA '{ca}'" },
  'ca-bgpsec-unknown': { status: 400, msg: "CA '{ca}' has no router key '{key}'" },
  // RFC 9323 signed checklists (ca/rsc.ts)
  'ca-rsc-checklist-empty': { status: 400, msg: "A signed checklist of CA '{ca}' needs at least one file" },
  'ca-rsc-file-invalid': { status: 400, msg: "File '{file}' cannot be in a signed checklist: {reason}" },
  'ca-rsc-resources-invalid': { status: 400, msg: 'Invalid resources for a signed checklist: {reason}' },
  'ca-rsc-not-entitled': { status: 400, msg: "Resources {resources} of the signed checklist are not held by CA '{ca}'" },
  'ca-rsc-resources-split': { status: 400, msg: "The resources {resources} of the signed checklist are held under different keys of CA '{ca}': sign one checklist per resource class" },
  'ca-rsc-no-certificate': { status: 400, msg: "CA '{ca}' has no current certified key to sign a checklist with" },
  'ca-history-unknown': { status: 404, msg: "CA '{ca}' has no history entry with key '{key}'" },
  // change plans (design.md §12, ca/plans.ts)
  'ca-plan-unknown': { status: 404, msg: "CA '{ca}' has no plan {plan}" },
  'ca-plan-empty': { status: 400, msg: "A plan for CA '{ca}' must change at least one ROA or ASPA" },
  'ca-plan-stale': { status: 409, msg: "Plan {plan} of CA '{ca}' is stale: the CA's ROAs or ASPAs changed after it was made; make a new plan" },
  'ca-plan-status': { status: 409, msg: "Plan {plan} of CA '{ca}' is {status}: it cannot be {action}" },
  'ca-plan-not-approved': { status: 409, msg: "Plan {plan} of CA '{ca}' needs the approval of a second user before it is applied (four-eyes)" },
  'ca-plan-own-approval': { status: 403, msg: "Plan {plan} of CA '{ca}' was made by '{user}': a different user must approve it (four-eyes)" },
  'ca-plan-invalidates': { status: 409, msg: "Plan {plan} of CA '{ca}' makes {count} seen BGP announcements invalid: apply it with accept_invalid (svcc plan apply --accept-invalid) if that is intended" },
  'ca-plan-required': { status: 409, msg: "CA '{ca}' requires four-eyes approval of ROA and ASPA changes: make a plan (POST /api/v1/cas/{ca}/plans, svcc plan create) and have a second user approve it" },
  'ca-plan-too-many': { status: 409, msg: "CA '{ca}' already has {count} open plans: apply, reject or withdraw some first" },
  'ca-plan-rollback-unknown': { status: 404, msg: "CA '{ca}' has no history version {version} to roll back to" },
  // ROA/ASPA import (api/roa-io.ts): every bad line of the file, listed by line; nothing is made.
  'ca-import-syntax': { status: 400, msg: 'Cannot import {kind} from this {format} file, nothing was changed: {count} problem(s):\n{problems}' },
  // Krill's structure import (POST /api/v1/bulk/cas/import, app/ca/structure-import.ts)
  'ca-import-not-empty': { status: 400, msg: 'A CA structure is imported only into an empty svcd; this one has {count} CAs ({cas}): nothing was changed' },
  'ca-import-invalid': { status: 400, msg: 'The CA structure cannot be imported, {count} problems: {problems}. Nothing was changed' },
  'ca-import-failed': { status: 409, msg: "The CA structure import stopped at CA '{ca}' ({step}): {reason}. Created so far: {created}; delete them (svcc delete -c <ca>, the last first) and import again" },
  // key roll
  'key-roll-pending-requests': { status: 400, msg: "CA '{ca}' still has certificate requests pending with its parents" },
  'key-roll-disallowed': { status: 400, msg: "CA '{ca}' cannot {action} a key roll: {reason}" },
  'alert-webhook-unknown': { status: 404, msg: "There is no webhook '{webhook}' configured (webhooks: {known})" },
  'signer-unknown': { status: 400, msg: "There is no signer '{signer}' in the configuration (signers: {known})" },
  'ca-id-roll-pending': { status: 409, msg: "CA '{ca}' has an identity key roll pending: finish it first (svcc id roll finish)" },
  'ca-id-roll-none': { status: 409, msg: "CA '{ca}' cannot do this identity key roll step: {reason}" },
  'key-no-new': { status: 400, msg: "CA '{ca}' has no new key to activate" },
  // pub-*: publication server
  'pub-unknown': { status: 404, msg: "Unknown publisher '{publisher}'" },
  'pub-duplicate': { status: 400, msg: "Duplicate publisher '{publisher}'" },
  'pub-outside-jail': { status: 400, msg: "Publishing '{uri}' outside of jail URI '{jail}'" },
  'pub-uri-no-slash': { status: 400, msg: "Base URI '{uri}' must end with '/'" },
  'pub-repo-not-initialized': { status: 400, msg: 'The publication server is not enabled' },
  'pub-request-invalid-xml': { status: 400, msg: 'Invalid RFC 8183 publisher request: {reason}' },
  'pub-quota-exceeded': { status: 400, msg: "Publisher '{publisher}' would exceed its quota: {reason}" },
  // testbed-*: the unauthenticated testbed self-service (/testbed/…)
  'testbed-handle-reserved': { status: 400, msg: "The handle '{handle}' is reserved: {reason}" },
  'testbed-not-self-service': { status: 403, msg: "'{handle}' was not registered through the testbed self-service: {reason}" },
  'testbed-registrations-full': { status: 403, msg: 'The testbed takes at most {max} self-service {what}; remove one first' },
  'api-rate-limited-total': { status: 429, msg: 'Too many self-service requests from all addresses together (at most {limit} a minute): retry in {retry_after} seconds' },
  'repo-not-set': { status: 400, msg: "CA '{ca}' has no repository configured" },
  // protocol messages
  'rfc-8183-xml': { status: 400, msg: 'Invalid RFC 8183 XML: {reason}' },
  'rfc6492-protocol': { status: 400, msg: 'RFC 6492 protocol error: {reason}' },
  'rfc6492-invalid-csr': { status: 400, msg: 'Invalid certificate request: {reason}' },
  'rfc6492-cms': { status: 400, msg: "The RFC 6492 message for CA '{ca}' is not a CMS signed message: {reason}" },
  'rfc6492-xml': { status: 400, msg: "The RFC 6492 message for CA '{ca}' is not an up-down message: {reason}" },
  'rfc6492-version': { status: 400, msg: 'Unsupported RFC 6492 message version: {reason}' },
  'rfc6492-type': { status: 400, msg: 'Unrecognised RFC 6492 message type: {reason}' },
  'rfc6492-invalid-key': { status: 400, msg: 'Invalid key in RFC 6492 revocation request: {reason}' },
  'rfc8181-protocol-message': { status: 400, msg: 'RFC 8181 protocol error: {reason}' },
  'rfc8181-validation': { status: 400, msg: 'RFC 8181 message failed validation: {reason}' },
  'rfc8181-delta': { status: 400, msg: 'RFC 8181 delta rejected: {reason}' },
  // RFC 8181 §3.2, §3.3 and §2.5: one PDU of a publication query refused (pubd/content.ts; report_error codes by
  // pubd/publication-errors.ts).
  'rfc8181-object-already-present': { status: 400, msg: "An object is already present at '{uri}'" },
  'rfc8181-no-object-present': { status: 400, msg: "There is no object at '{uri}'" },
  'rfc8181-no-object-matching-hash': { status: 400, msg: "The object at '{uri}' does not have the hash given" },
  'rfc8181-consistency-problem': { status: 400, msg: "The repository cannot hold '{uri}': {reason}" },
  // object library, offline tools
  'objects-invalid': { status: 400, msg: 'Object failed its own checks and was not published: {reason}' },
  'general-error': { status: 400, msg: '{reason}' },
  // sys-*: ours, always 500, never shown in detail to the client
  'sys-internal': { status: 500, msg: 'Internal Server Error' },
  'sys-config': { status: 500, msg: 'Configuration error: {reason}' },
  'sys-io': { status: 500, msg: 'I/O error: {reason}' },
  'sys-store': { status: 500, msg: 'Storage error: {reason}' },
  'sys-signer': { status: 500, msg: 'Signer error: {reason}' },
  // A configured signer (design.md §10) that cannot sign now: nothing was signed or changed; svcd retries by itself.
  'sys-signer-unavailable': { status: 503, msg: "Signer '{signer}' cannot be used: {reason}; nothing was signed; retrying", expose: true },
  'sys-signer-login': { status: 503, msg: "Signer '{signer}' refused the login ({reason}): check its user_pin; nothing was signed; retrying", expose: true },
  'sys-signer-slow': { status: 503, msg: "Signer '{signer}' answers slowly: {operation} took more than {ms} ms; nothing was signed; retrying", expose: true },
  'sys-signer-key-missing': { status: 500, msg: "Signer '{signer}' does not hold key {key}" },
  'sys-http-client': { status: 500, msg: 'HTTP client error: {reason}' },
  'sys-not-implemented': { status: 501, msg: '{feature} is not implemented', expose: true },
  // The data directory's storage failed (issue 10): the request changed nothing and can be retried. 507 Insufficient
  // Storage (RFC 4918 §11.5) for a full disk or quota, 503 for an I/O error or a read-only file system.
  'sys-storage-full': { status: 507, msg: 'No space is left in the data directory: nothing was changed; retry when space has been freed', expose: true },
  'sys-storage-io': { status: 503, msg: 'The data directory cannot be written: nothing was changed; retry later', expose: true },
  // The database (PostgreSQL) cannot be reached (issue 22 defect 9): a labelled 503 instead of a bare sys-internal.
  'sys-storage-unavailable': { status: 503, msg: 'The database cannot be reached: nothing was changed; retry later', expose: true },
  // Several instances on one database: what only the leader does, asked of another instance.
  'sys-not-leader': { status: 503, msg: 'This instance does not lead the cluster: {action} is done by the leader ({leader}); send it there', expose: true },
  // Problems of the publication server's output, shown by GET /ready and the pubd stats, never thrown.
  'sys-rrdp-behind': { status: 503, msg: 'RRDP does not hold everything accepted: writing its files has failed since {since}; retrying' },
  'sys-rsync-behind': { status: 503, msg: 'The rsync tree does not hold everything accepted: writing it has failed since {since}; retrying' },
  'sys-publication-held': { status: 503, msg: "The safety floor holds back the {output} output since {since}: {why}; release it with 'svcc publishers release' once checked" },
  'sys-rsync-publisher': { status: 503, msg: "The rsync tree keeps old files of publisher '{publisher}': writing its files has failed since {since}; retrying" },
  'sys-rrdp-lag': { status: 503, msg: 'RRDP does not hold a change accepted at {accepted}, more than {bound} s ago' },
  'sys-rsync-lag': { status: 503, msg: 'The rsync tree does not hold a change accepted at {accepted}, more than {bound} s ago' },
  // A part of svcd that stopped making progress without crashing (issue 26 §5): shown by GET /ready and the bulk issues.
  'sys-stalled': { status: 503, msg: 'The {component} has stalled since {since}: {why}' },
  'sys-bgp-analysis': { status: 503, msg: 'The BGP analysis failed: {reason}; nothing changed; retry', expose: true },
} as const satisfies Record<string, CatalogueEntry>

export type ErrorLabel = keyof typeof CATALOGUE

/** The JSON error body of the API: `args` values are strings (krill-reference.md §1.3). */
export interface ErrorBody {
  label: string
  msg: string
  args: Record<string, string>
  /** Only for `ca-roa-delta-error`: the refused ROAs by problem (Krill's lists of objects). */
  delta_error?: Record<string, DeltaRoa[]>
}

/**
 * A refused ROA of a delta, as Krill's `delta_error` lists it (krill:test-resources/errors/ca-roa-delta-error.json):
 * the ASN, the prefix, the max length when it is not the prefix length; svcd adds why an invalid max length is invalid.
 */
export interface DeltaRoa {
  asn: number
  prefix: string
  max_length?: number
  reason?: string
}

/** A refused ROA as Krill's message writes it: `10.0.0.0/20-24 => 1` (with svcd's reason after a colon, if any). */
export function formatDeltaRoa(r: DeltaRoa): string {
  return `${r.prefix}${r.max_length === undefined ? '' : `-${r.max_length}`} => ${r.asn}${r.reason ? `: ${r.reason}` : ''}`
}

/**
 * Fill `{name}` placeholders of a template from args; unknown placeholders stay visible. A `[…]` section is optional:
 * it is kept (without its brackets) when args hold every placeholder in it, and left out otherwise.
 */
export function renderMessage(template: string, args: Record<string, string>): string {
  const fill = (text: string) => text.replace(/\{([a-z_]+)\}/g, (whole, name: string) => (Object.hasOwn(args, name) ? args[name]! : whole))
  const sections = template.replace(/\[([^[\]]*)\]/g, (_whole, inner: string) => ([...inner.matchAll(/\{([a-z_]+)\}/g)].every((m) => Object.hasOwn(args, m[1]!)) ? inner : ''))
  return fill(sections)
}

/** A labelled service error. The message comes from the catalogue template and the args. */
export class AppError extends Error {
  readonly label: ErrorLabel
  readonly args: Record<string, string>
  readonly status: number
  readonly extra: Partial<Pick<ErrorBody, 'delta_error'>>

  constructor(label: ErrorLabel, args: Record<string, string> = {}, options: { cause?: unknown; extra?: AppError['extra'] } = {}) {
    const delta = options.extra?.delta_error
    super(renderMessage(CATALOGUE[label].msg, args) + (delta ? `\n\n${deltaLines(delta).join('\n')}` : ''), { cause: options.cause })
    this.name = 'AppError'
    this.label = label
    this.args = args
    this.status = CATALOGUE[label].status
    this.extra = options.extra ?? {}
  }

  /** The body sent to clients. 5xx errors never show details (Koa's `expose` rule) unless marked `expose`. */
  body(): ErrorBody {
    if (this.status >= 500 && !('expose' in CATALOGUE[this.label])) return internalErrorBody()
    return { label: this.label, msg: this.message, args: this.args, ...this.extra }
  }
}

/** Krill's headings of a refused ROA delta's problems (krill:src/commons/error.rs `impl Display for RoaDeltaError`). */
const DELTA_HEADINGS: Readonly<Record<string, string>> = {
  duplicates: 'Cannot add the following duplicate ROAs:',
  notheld: 'Cannot add the following ROAs with prefixes not on any of your certificates:',
  unknowns: 'Cannot remove the following unknown ROAs:',
  invalid_length: 'The following ROAs have a max length which is invalid for the prefix:',
}

/** The refused ROAs of a delta as Krill's message lists them: a heading per problem, then each ROA indented. */
function deltaLines(delta: Record<string, DeltaRoa[]>): string[] {
  const lines: string[] = []
  for (const [kind, roas] of Object.entries(delta)) {
    if (roas.length === 0) continue
    lines.push(DELTA_HEADINGS[kind] ?? `${kind}:`, ...roas.map((r) => `  ${formatDeltaRoa(r)}`))
  }
  return lines
}

/** The body of every 5xx the client sees: no stack, no internals. */
export function internalErrorBody(): ErrorBody {
  return { label: 'sys-internal', msg: CATALOGUE['sys-internal'].msg, args: {} }
}

/** Is this string a catalogue label? */
export function isErrorLabel(label: string): label is ErrorLabel {
  return Object.hasOwn(CATALOGUE, label)
}

/** The message of any thrown value, for wrapping library errors into args.reason. */
export function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

const STORAGE_FULL = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL'])
const STORAGE_IO = /^(EIO|EROFS|SQLITE_IOERR.*|SQLITE_READONLY.*)$/
/** The code of store/sql.ts StoreUnavailableError: the database cannot be reached. */
const STORAGE_UNAVAILABLE = 'SVC_STORAGE_UNAVAILABLE'

/**
 * The labelled error for a failure of the data directory's storage (issue 10), or undefined for any other error:
 * a full disk or quota is `sys-storage-full`, an I/O error or a read-only file system `sys-storage-io`. Looks at the
 * errno code of node:fs errors and the result code of SQLite errors, on the error and its causes.
 */
export function storageFault(err: unknown): AppError | undefined {
  let e = err
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null; depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && STORAGE_FULL.has(code)) return new AppError('sys-storage-full', {}, { cause: err })
    if (typeof code === 'string' && STORAGE_IO.test(code)) return new AppError('sys-storage-io', {}, { cause: err })
    if (code === STORAGE_UNAVAILABLE) return new AppError('sys-storage-unavailable', {}, { cause: err })
    e = (e as { cause?: unknown }).cause
  }
  return undefined
}
