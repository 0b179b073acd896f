/**
 * design.md §2 as it applies to today's src/ tree, as data for test/helpers/layering.ts: the layer of each file, what
 * each layer may import, the third-party homes, and every place where today's code knowingly departs from the target
 * table. Each exception names a file or folder and says why; the redesign removes entries, the test fails on a stale one.
 */
import type { EdgeAllowance, Policy } from './layering.js'

const LIBRARY = ['util', 'resources', 'asn1', 'crypto', 'objects', 'protocol'] as const
const lib = (before: number) => LIBRARY.slice(0, before).map((layer) => ({ layer }))
const ALL_LIBRARY = lib(LIBRARY.length)

/** Which layer each file is in; first match wins. Top-level files outside the target table each get their own row. */
const LAYERS: Policy['layers'] = [
  ...LIBRARY.map((l) => [`${l}/`, l] as const),
  ['errors.ts', 'errors'],
  ['eventsourcing.ts', 'domain'],
  ['ca/', 'domain'],
  ['liveness/', 'domain'], // the relying-party view's pure rules (design.md §11): what a fetched publication point proves, alarms
  // pubd/ holds both halves today: the pure model (publishers, content rules) and the I/O writers.
  ['pubd/publishers.ts', 'domain'],
  ['pubd/content.ts', 'domain'],
  ['pubd/publication-errors.ts', 'domain'], // RFC 8181 §2.5 codes by label: a pure table
  ['pubd/quota.ts', 'domain'], // publication quotas (issue 22): a pure rule, as content.ts
  // RRDP as one module (design.md §6): its pure model (sessions, serials, file names, the notification, restore
  // detection; which deltas and files are kept; the plan of a snapshot's byte ranges) is domain, the rest its I/O writer.
  ['pubd/rrdp/model.ts', 'domain'],
  ['pubd/rrdp/retention.ts', 'domain'],
  ['pubd/rrdp/snapshot-layout.ts', 'domain'],
  ['pubd/rrdp/', 'storage'], // writer.ts (the module's entry, with index.ts), files.ts, serve.ts, snapshot-copy.ts
  ['pubd/*-writer.ts', 'storage'], // rsync-writer, rsync-tree-writer, and durable-writer: "one durable-write module"
  ['store/', 'storage'],
  ['signers/', 'signers'], // the configured signers (design.md §10): PKCS#11 tokens and the set over them; infrastructure like store/
  ['app/', 'application'], // app/pubd/ is the publication service; app/ca-* the CA service until it moves to app/ca/
  ['ta/', 'application'],
  ['api/', 'api'],
  ['http/', 'http'],
  ['client/', 'client'],
  ['cli/', 'cli'],
  ['ui/', 'ui'], // the web console (browser code, bundled by esbuild; its own tsconfig)
  ['main.ts', 'root'],
  ['cli.ts', 'root'],
  ['compose.ts', 'root'],
  ['compose-*.ts', 'root'], // the composition root's parts: storage, publication, identity and access
  // Top-level support files design.md §2 does not place: each is its own layer, with its own row below.
  ['config.ts', 'config'],
  ['config-quotas.ts', 'config'], // config.ts's quota and self-service options (issue 22)
  ['config-types.ts', 'config'], // the shape of the configuration, types only
  ['config-auth.ts', 'config'], // auth_type, [auth_roles], [auth_users], [auth_openidconnect] (issue 24)
  ['config-signers.ts', 'config'], // [[signers]], default_signer, one_off_signer (issue 25)
  ['config-alerts.ts', 'config'], // [alerts] and [[alerts.webhooks]] (issue 26)
  ['log.ts', 'log'],
  ['clock.ts', 'clock'], // the system's clock, timers and randomness (util/clock.ts: the interfaces); roots only
  ['lock.ts', 'lock'],
  ['tls-cert.ts', 'tls-cert'],
  ['version.ts', 'version'],
  ['watch.ts', 'watch'],
]

/** design.md §2's "may import" column. errors.ts is the label catalogue: the domain may import it, so every layer above. */
const MAY_IMPORT: Policy['mayImport'] = {
  util: lib(0),
  resources: lib(1),
  asn1: lib(2),
  crypto: lib(3),
  objects: lib(4),
  protocol: lib(5),
  errors: ALL_LIBRARY,
  domain: [...ALL_LIBRARY, { layer: 'errors' }],
  // "library, domain types" (style.md §5 adds errors.ts).
  storage: [...ALL_LIBRARY, { layer: 'errors' }, { layer: 'domain', types: true }],
  // "storage interfaces (never a concrete store), api/ types": a type-only import stands for an interface.
  application: [...ALL_LIBRARY, { layer: 'errors' }, { layer: 'domain' }, { layer: 'storage', types: true }, { layer: 'signers', types: true }, { layer: 'api', types: true }],
  // Infrastructure beside storage (design.md §10): a vendor library through pkcs11js, timers for retries, the labels.
  signers: [...ALL_LIBRARY, { layer: 'errors' }],
  api: [...ALL_LIBRARY, { layer: 'errors' }],
  // "the services' public methods and api/": services are handed in, so http/ needs their types only; the clock is
  // handed in too (design.md §6 "Time and chance are injected"), so the edge knows its interface (util/clock.ts).
  http: [{ layer: 'api' }, { layer: 'errors' }, { layer: 'application', types: true }, { layer: 'util', types: true }],
  client: [{ layer: 'api' }, ...ALL_LIBRARY],
  cli: [{ layer: 'api' }, { layer: 'client' }, ...ALL_LIBRARY],
  // design.md §2: "ui/: api/ types only" (its API types come from the generated description, fixtures/openapi/).
  ui: [{ layer: 'api', types: true }],
  root: [{ layer: '*' }],
  config: ALL_LIBRARY,
  log: [],
  clock: ALL_LIBRARY,
  lock: [],
  'tls-cert': ALL_LIBRARY,
  version: [],
  // An edge (style.md §5: manager.ts, api/, errors.ts); today it imports nothing of ours.
  watch: [{ layer: 'api' }, { layer: 'errors' }, { layer: 'application' }, { layer: 'util', types: true }],
}

/** Today's edges outside the table, per file or folder, each with its reason. The redesign deletes lines here. */
const EDGE_ALLOWANCES: EdgeAllowance[] = [
  // Services and the HTTP edge take the whole Config and the Logger interface, whose types live in the support files;
  // in the target, compose.ts passes each service its own options and a logger.
  { from: 'app/', to: 'log.ts', types: true, why: 'the Logger interface lives in log.ts (next to pino)' },
  { from: 'ta/', to: 'log.ts', types: true, why: 'the Logger interface lives in log.ts (next to pino)' },
  { from: 'http/deps.ts', to: 'config.ts', types: true, why: 'HttpDeps carries Config; the routers read the post_limit_* sizes from it' },
  { from: 'http/', to: 'log.ts', types: true, why: 'request logging takes the Logger interface' },
  { from: 'api/health.ts', to: 'liveness/model.ts', types: true, why: 'the wire JSON of GET /api/v1/health/cas is the JSON of the liveness shapes (types only)' },
  { from: 'http/routes/health.ts', to: 'liveness/model.ts', types: true, why: 'without the liveness service every CA is answered as never checked (a CaLiveness)' },
  { from: 'log.ts', to: 'config.ts', types: true, why: 'LogLevel and LogType are declared in config.ts' },
  { from: 'config-alerts.ts', to: 'liveness/model.ts', why: "a webhook's events are the alarm kinds (ALARM_KINDS), checked at start" },
  // The version string is read from package.json at import time (version.ts does file I/O when loaded).
  { from: 'cli/program.ts', to: 'version.ts', why: 'svcc --version' },
  // api/ holds JSON codecs and input checks as values, not only types: the table admits api/ types in the application.
  { from: 'app/ca/inputs.ts', to: 'api/*.ts', why: 'checks API input with the codecs of api/cas.ts and api/pubd.ts' },
  { from: 'app/ca/ca-service.ts', to: 'api/*.ts', why: 'answers in wire JSON built with the api/ codecs (RFC 8183 requests, history limits)' },
  { from: 'app/ca/child-service.ts', to: 'api/cas.ts', why: 'answers the RFC 8183 parent response in wire JSON (parentResponseJson)' },
  { from: 'app/access/', to: 'api/access.ts', why: "roles and permissions are the API's contract (Krill's names, api/access.ts); the access services apply them" },
  { from: 'app/access/token-service.ts', to: 'api/tokens.ts', why: 'checks a new token with the api/tokens.ts rules and answers its wire JSON (tokenJson)' },
  { from: 'app/access/oidc-*.ts', to: 'config-auth.ts', types: true, why: 'the OpenID Connect service and its claim rules take [auth_openidconnect] as config-auth.ts parsed it (OidcConfig, ClaimRule)' },
  { from: 'config-auth.ts', to: 'api/access.ts', why: '[auth_roles] is checked at start against the permission names and shortcuts of api/access.ts' },
  { from: 'app/ca/roa-io-service.ts', to: 'api/roa-io.ts', why: 'reads an import file with the codecs of api/roa-io.ts, which name every bad line (ca-import-syntax)' },
  { from: 'app/pubd/publisher-service.ts', to: 'api/pubd.ts', why: 'the pubd* methods answer wire JSON through the api/pubd.ts codecs' },
  { from: 'app/ca/structure-import.ts', to: 'api/structure.ts', why: "Krill's structure import is checked with the api/structure.ts rules (checkStructure) before anything changes" },
  { from: 'app/ca/child-transfer.ts', to: 'api/child-import.ts', why: "checks Krill's ImportChild with api/child-import.ts and answers it for an export" },
  // A writer uses a pure helper of the domain as a value, where the table admits domain types only.
  { from: 'pubd/rsync-writer.ts', to: 'pubd/publishers.ts', why: 'relativePath maps a published URI to a file under the jail' },
  // The RRDP module's I/O half applies its pure model (design.md §6: one module, a model and a writer beside it).
  { from: 'pubd/rrdp/', to: 'pubd/rrdp/model.ts', why: 'the RRDP writer applies the model beside it (serials, names, notification, restore)' },
  { from: 'pubd/rrdp/', to: 'pubd/rrdp/retention.ts', why: 'the RRDP writer applies the retention rules beside it (deltas, files)' },
  { from: 'pubd/rrdp/', to: 'pubd/rrdp/snapshot-layout.ts', why: "the RRDP writer follows the model's plan of a snapshot's byte ranges" },
]

/** Each third-party package and the only files that may import it (style.md §5, design.md §2). */
const HOMES: Policy['homes'] = {
  koa: ['http/'],
  '@koa/router': ['http/'],
  'better-sqlite3': ['store/'],
  pg: ['store/'],
  'fast-xml-parser': ['protocol/xml.ts'],
  xmlbuilder2: ['protocol/xml.ts'],
  pkijs: ['asn1/ber.ts'],
  asn1js: ['asn1/ber.ts'],
  chokidar: ['watch.ts'],
  pino: ['log.ts'],
  'pino-pretty': ['log.ts'],
  'smol-toml': ['config.ts'],
  // The PKCS#11 binding (issue 25): loaded on first use by the token module only.
  pkcs11js: ['signers/pkcs11-*.ts'],
  commander: ['cli/'],
  'prom-client': ['app/metrics/'],
  preact: ['ui/'],
  'openapi-fetch': ['ui/'],
  // The OpenID Connect relying party (issue 24): discovery, the authorization request, the code grant, the logout URL.
  'openid-client': ['app/access/oidc*.ts'],
  // The generated types of the OpenAPI description (fixtures/openapi/schema.d.ts), by the alias of src/ui/tsconfig.json.
  'svc-api-schema': ['ui/'],
}

/** Node modules that do I/O or read the machine: never in the library or the domain. */
const IO_MODULES = new Set(['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'tls', 'dgram', 'child_process', 'cluster', 'dns', 'readline', 'worker_threads', 'process', 'os'])

/** Today's clock/randomness/machine reads in pure files, with the reason each is there. */
const PURITY_ALLOWANCES: Policy['purityAllowances'] = [
  { file: 'crypto/key-pool.ts', what: 'crypto.generateKeyPair', why: 'the key pool is key generation (design.md §3): randomness is its job' },
  { file: 'crypto/key-pool.ts', what: 'import os', why: 'default concurrency is os.availableParallelism(); compose.ts could pass it in' },
  { file: 'protocol/id-cert.ts', what: 'crypto.randomBytes', why: 'createIdCert draws a serial when none is passed; design.md §2 wants it passed in' },
]

/**
 * Today's import cycles, each from its smallest file. Every one is closed by an `import type` (erased at run time;
 * the test also checks that the value imports alone have no cycle), and each goes away by moving the shared type to a
 * file of its own (http/deps.ts for HttpDeps, store/migrations/migration.ts for Migration, …).
 */
const KNOWN_CYCLES: string[] = [
  'ca/commands.ts → ca/parents.ts → ca/commands.ts', // CaCommand, Entitlement types
  'objects/cert-profile.ts → objects/cert.ts → objects/cert-profile.ts', // Cert type
  'protocol/provisioning-decode.ts → protocol/provisioning.ts → protocol/provisioning-decode.ts', // message types
]

/**
 * Stores (and the Db), signers (the key pool, the CMS message signers and the publication server's codec), writers,
 * rsyncd, the services and their collaborators, and the scheduler: the classes only the roots construct. A service's
 * own helpers (a Pacer, a KeyedMutex, its problems list, the RFC 8181 endpoint) are not infrastructure.
 */
const INFRASTRUCTURE = [
  'store/',
  'crypto/soft-signer.ts',
  'crypto/key-pool.ts',
  'signers/pkcs11-signer.ts',
  'signers/signer-set.ts',
  'protocol/signed-message.ts',
  'app/pubd/message-codec.ts',
  'pubd/*-writer.ts',
  'pubd/rrdp/writer.ts',
  'app/pubd/rsync-daemon.ts',
  'app/pubd/publisher-service.ts',
  'app/pubd/output-service.ts',
  'app/access/*-service.ts',
  'app/ca/ca-*.ts',
  'app/ca/*-service.ts',
  'app/ca/*-client.ts',
  'app/ca/child-server.ts',
  'app/ca/message-signers.ts',
  'app/ca/roas-view.ts',
  'app/*-service.ts',
  'app/shared/scheduler.ts',
  'app/metrics/metrics-service.ts',
  'app/liveness/*-service.ts',
  'ta/*-service.ts',
  'app/liveness/liveness-service.ts',
  'app/liveness/*fetcher.ts', // the relying-party view's RRDP and rsync clients and the RepositoryFetcher over them (issue 26)
  'app/shared/quarantine.ts',
  'app/shared/watchdog.ts',
]

/** Functions that build infrastructure: the property store, the Koa app and its HTTPS server, the file watcher. */
const FACTORIES = ['store/properties.ts#propertyStore', 'store/sql-stores.ts#createSqlStores', 'store/postgres.ts#createPostgresStores', 'http/app.ts#createApp', 'http/app.ts#listen', 'watch.ts#watchFiles']

/** Today's construction sites outside the roots (main.ts builds the rest); the redesign moves them into compose.ts. */
const CONSTRUCTION_ALLOWANCES: Policy['constructionAllowances'] = [
  // The store layer's own factory, which compose.ts calls: one database, every SQLite store over it.
  ...['SqlCaStore', 'SqlCaObjectsStore', 'SqlCaStatusStore', 'SqlTaskStore', 'SqlPublicationStore', 'SqlChildReplayStore', 'SqlSessionStore', 'SqlAuditStore', 'SqlTokenStore', 'SqlLoginStore', 'SqlPlanStore', 'SqlSignerStore', 'SqlLivenessStore', 'SqlAlertStore', 'propertyStore', 'SqlQuarantineStore'].map((name) => ({ file: 'store/sql-stores.ts', name, why: 'the SQLite stores factory the composition root calls' })),
  // The same factory over a PostgreSQL connection (the store classes' SQL is common to both dialects, store/sql.ts).
  { file: 'store/postgres.ts', name: 'createSqlStores', why: 'the PostgreSQL stores factory is the SQLite one over a PgDb' },
  // A token's one-off keys are session objects of that token: the signer keeps its own pool of them (design.md §10).
  { file: 'signers/pkcs11-signer.ts', name: 'KeyPool', why: "a PKCS#11 signer's one-off keys live in its token's sessions: its pool is part of it" },
]

export const POLICY: Policy = {
  layers: LAYERS,
  mayImport: MAY_IMPORT,
  edgeAllowances: EDGE_ALLOWANCES,
  homes: HOMES,
  pure: [...LIBRARY, 'domain'],
  ioModules: IO_MODULES,
  purityAllowances: PURITY_ALLOWANCES,
  knownCycles: KNOWN_CYCLES,
  infrastructure: INFRASTRUCTURE,
  factories: FACTORIES,
  constructors: ['main.ts', 'cli.ts', 'compose.ts', 'compose-storage.ts', 'compose-publication.ts', 'compose-access.ts', 'compose-signers.ts', 'compose-liveness.ts', 'compose-alerts.ts', 'compose-queues.ts'],
  constructionAllowances: CONSTRUCTION_ALLOWANCES,
}
