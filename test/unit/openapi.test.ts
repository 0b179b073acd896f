/**
 * The OpenAPI description (src/api/openapi.ts) against the code: every route of the Koa app is described and every
 * described operation has a route; the document passes Redocly's OpenAPI 3 checks; the generated fixtures are
 * current; the generated types equal the wire types of src/api and the answers svcc's calls expect. (That
 * GET /api/v1/openapi.json serves it behind the token is checked by test/scenario/openapi-client.test.ts.)
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { createConfig, lintFromString } from '@redocly/openapi-core'
import type { WhoAmIJson } from '../../src/api/access.js'
import type { AspaDefinitionUpdatesJson, AspaProvidersUpdateJson } from '../../src/api/aspas.js'
import type { BgpSecCsrInfoJson, BgpSecDefinitionUpdatesJson } from '../../src/api/bgpsec.js'
import type { RscSignedJson, RscSignJson } from '../../src/api/rsc.js'
import type { AnnouncementJson, AspaDefinitionJson, BgpAnalysisEntry, BgpAnalysisSuggestion, CaIssuesJson, CaList, CertAuthInfo, ChildInfoJson, ChildRequestJson, CommandDetailsJson, CommandHistoryJson, ConfiguredRoa, AddChildJson, AddParentJson, ParentContactJson, ParentResponseJson, ParentStatusJson, RepoInfoJson, RepoStatusJson, ReplacementRoaSuggestionJson, RoaDeltaJson, RoaJson, RoaPayloadJson, UpdateChildJson } from '../../src/api/cas.js'
import type { RoaRowJson, RoasPageJson } from '../../src/api/cas.js'
import type { CasPageJson, ChildRowJson, ChildrenPageJson, PublisherRowJson, PublishersPageJson } from '../../src/api/paging.js'
import { OPENAPI, OPENAPI_VERSION } from '../../src/api/openapi.js'
import type { PublisherDetails, PublisherList, PublisherRequestJson, RepoStats, RepositoryResponseJson } from '../../src/api/pubd.js'
import type { ErrorBody, LoggedInUser, ReadyJson, ServerInfo } from '../../src/api/status.js'
import type { TaKeyRollJson } from '../../src/api/ta.js'
import type { HealthCaJson, HealthCheckJson, HealthPageJson } from '../../src/api/health.js'
import type { AddTokenJson, NewTokenJson, TokenJson, TokenListJson } from '../../src/api/tokens.js'
import type { ApiCall } from '../../src/client/api-client.js'
import type { calls } from '../../src/client/calls.js'
import type { components, operations } from '../../fixtures/openapi/schema.js'
import { OPENAPI_JSON, OPENAPI_TYPES, openApiJson, openApiTypes } from '../helpers/gen-openapi-client.js'
import { isPublic } from '../../src/http/auth.js'
import { routeTable } from '../helpers/route-table.js'
import type { AlertsJson, AlertTestJson, AlertTestResultJson } from '../../src/api/alerts.js'

const METHODS = ['get', 'post', 'delete'] as const

/** `METHOD /full/path` of every described operation: the path below its server's base path. */
function describedRoutes(): Set<string> {
  const described = new Set<string>()
  for (const [path, item] of Object.entries(OPENAPI.paths)) {
    const server = (item.servers ?? OPENAPI.servers)[0]
    const base = new URL(server.url.replace('{host}', 'localhost')).pathname.replace(/\/$/, '')
    for (const m of METHODS) if (item[m]) described.add(`${m.toUpperCase()} ${base}${path}`)
  }
  return described
}

t.test('every route is described, and every described operation has a route', async (t) => {
  const served = new Set(routeTable())
  const described = describedRoutes()
  t.ok(served.size > 50, `found the routes (${served.size})`)
  t.same([...served].filter((r) => !described.has(r)).sort(), [], 'routes without a description (add them to src/api/openapi-paths.ts)')
  t.same([...described].filter((r) => !served.has(r)).sort(), [], 'described operations without a route')
  t.ok(served.has('POST /rfc6492/{ca}') && served.has('GET /rrdp/{file}'), 'trailing-slash variants folded, the RRDP middleware counted')
  t.ok(served.has('GET /api/v1/openapi.json') && described.has('GET /api/v1/openapi.json'), 'the description describes itself')
})

t.test('the document passes Redocly (recommended-strict: OpenAPI 3 structure, refs, parameters, ids, security)', async (t) => {
  // operation-4xx-response is off: GET /health and /stats/info are public and have no client error to describe.
  const config = await createConfig({ extends: ['recommended-strict'], rules: { 'operation-4xx-response': 'off' } })
  const problems = await lintFromString({ source: openApiJson(), absoluteRef: OPENAPI_JSON, config })
  t.same(problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`), [])
})

t.test('house rules of the description', async (t) => {
  t.equal(OPENAPI.openapi, '3.0.3')
  t.equal(OPENAPI.info.version, OPENAPI_VERSION)
  t.match(OPENAPI_VERSION, /^\d+\.\d+\.\d+$/, 'its own semantic version')
  t.match(OPENAPI.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer' })
  t.same(OPENAPI.security, [{ bearerAuth: [] }], 'bearer auth for every operation unless overridden')
  t.equal(OPENAPI.servers[0].url, 'https://{host}/api/v1')
  t.equal(OPENAPI.servers[0].variables?.host.default, 'localhost:3000')
  for (const [path, item] of Object.entries(OPENAPI.paths)) {
    for (const m of METHODS) {
      const op = item[m]
      if (!op) continue
      const name = `${m.toUpperCase()} ${path}`
      const served = `${m.toUpperCase()} ${item.servers ? '' : '/api/v1'}${path.replace(/\{[a-z_]+\}/g, 'x')}`
      const [method, full] = served.split(' ')
      t.equal(isPublic(method, full), op.security?.length === 0, `${name}: public in the description exactly when http/auth.ts lets it through without a token`)
      if (op.security?.length === 0) t.ok(item.servers, `${name}: public, at the host`)
      else {
        t.equal(op.security, undefined, `${name}: behind the bearer token`)
        t.ok(op.responses['401'] && op.responses['500'], `${name}: answers 401 and 500`)
      }
      t.ok(Object.keys(op.responses).some((s) => s >= '400'), `${name}: has error answers`)
      if (path.includes('{')) t.ok(op.responses['404'] || path.startsWith('/rfc8181/'), `${name}: 404 for an unknown handle`)
    }
  }
})

t.test('fixtures/openapi is current (make fixtures rewrites it)', async (t) => {
  t.equal(readFileSync(OPENAPI_JSON, 'utf8'), openApiJson(), 'openapi.json is current (else: make fixtures)')
  t.equal(readFileSync(OPENAPI_TYPES, 'utf8'), await openApiTypes(), 'schema.d.ts is current (else: make fixtures)')
})

//------------ Generated types against src/api (checked by tsc: TAP_TYPECHECK=1 and make check) --------------------
// A wire type changed in src/api and "Conversion of type 'true' to type 'false'" below? Change the schema of the same
// name in src/api/openapi-schemas.ts (and bump OPENAPI_VERSION), then `make fixtures`.

/** true when A and B are assignable both ways. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type S = components['schemas']

const sameSchemas: Record<string, true> = {
  CaList: true as Same<S['CaList'], CaList>,
  CertAuthInfo: true as Same<S['CertAuthInfo'], CertAuthInfo>,
  ChildRequestJson: true as Same<S['ChildRequestJson'], ChildRequestJson>,
  ParentResponseJson: true as Same<S['ParentResponseJson'], ParentResponseJson>,
  AddParentJson: true as Same<S['AddParentJson'], AddParentJson>,
  ParentContactJson: true as Same<S['ParentContactJson'], ParentContactJson>,
  ParentStatusJson: true as Same<S['ParentStatusJson'], ParentStatusJson>,
  AddChildJson: true as Same<S['AddChildJson'], AddChildJson>,
  UpdateChildJson: true as Same<S['UpdateChildJson'], UpdateChildJson>,
  ChildInfoJson: true as Same<S['ChildInfoJson'], ChildInfoJson>,
  RoaJson: true as Same<S['RoaJson'], RoaJson>,
  RoaDeltaJson: true as Same<S['RoaDeltaJson'], RoaDeltaJson>,
  ConfiguredRoa: true as Same<S['ConfiguredRoa'], ConfiguredRoa>,
  RoaRowJson: true as Same<S['RoaRowJson'], RoaRowJson>,
  RoasPageJson: true as Same<S['RoasPageJson'], RoasPageJson>,
  CasPageJson: true as Same<S['CasPageJson'], CasPageJson>,
  ChildRowJson: true as Same<S['ChildRowJson'], ChildRowJson>,
  ChildrenPageJson: true as Same<S['ChildrenPageJson'], ChildrenPageJson>,
  PublisherRowJson: true as Same<S['PublisherRowJson'], PublisherRowJson>,
  PublishersPageJson: true as Same<S['PublishersPageJson'], PublishersPageJson>,
  RepoInfoJson: true as Same<S['RepoInfoJson'], RepoInfoJson>,
  RepoStatusJson: true as Same<S['RepoStatusJson'], RepoStatusJson>,
  CaIssuesJson: true as Same<S['CaIssuesJson'], CaIssuesJson>,
  CommandHistoryJson: true as Same<S['CommandHistoryJson'], CommandHistoryJson>,
  CommandDetailsJson: true as Same<S['CommandDetailsJson'], CommandDetailsJson>,
  PublisherRequestJson: true as Same<S['PublisherRequestJson'], PublisherRequestJson>,
  RepositoryResponseJson: true as Same<S['RepositoryResponseJson'], RepositoryResponseJson>,
  PublisherList: true as Same<S['PublisherList'], PublisherList>,
  PublisherDetails: true as Same<S['PublisherDetails'], PublisherDetails>,
  RepoStats: true as Same<S['RepoStats'], RepoStats>,
  ServerInfo: true as Same<S['ServerInfo'], ServerInfo>,
  ReadyJson: true as Same<S['ReadyJson'], ReadyJson>,
  LoggedInUser: true as Same<S['LoggedInUser'], LoggedInUser>,
  WhoAmIJson: true as Same<S['WhoAmIJson'], WhoAmIJson>,
  BgpAnalysisEntry: true as Same<S['BgpAnalysisEntry'], BgpAnalysisEntry>,
  BgpAnalysisSuggestion: true as Same<S['BgpAnalysisSuggestion'], BgpAnalysisSuggestion>,
  AnnouncementJson: true as Same<S['AnnouncementJson'], AnnouncementJson>,
  RoaPayloadJson: true as Same<S['RoaPayloadJson'], RoaPayloadJson>,
  ReplacementRoaSuggestionJson: true as Same<S['ReplacementRoaSuggestionJson'], ReplacementRoaSuggestionJson>,
  AspaDefinitionJson: true as Same<S['AspaDefinitionJson'], AspaDefinitionJson>,
  AspaDefinitionUpdatesJson: true as Same<S['AspaDefinitionUpdatesJson'], AspaDefinitionUpdatesJson>,
  AspaProvidersUpdateJson: true as Same<S['AspaProvidersUpdateJson'], AspaProvidersUpdateJson>,
  BgpSecCsrInfoJson: true as Same<S['BgpSecCsrInfoJson'], BgpSecCsrInfoJson>,
  BgpSecDefinitionUpdatesJson: true as Same<S['BgpSecDefinitionUpdatesJson'], BgpSecDefinitionUpdatesJson>,
  RscSignJson: true as Same<S['RscSignJson'], RscSignJson>,
  RscSignedJson: true as Same<S['RscSignedJson'], RscSignedJson>,
  ErrorBody: true as Same<S['ErrorBody'], ErrorBody>,
  TaKeyRollJson: true as Same<S['TaKeyRollJson'], TaKeyRollJson>,
  TokenJson: true as Same<S['TokenJson'], TokenJson>,
  TokenListJson: true as Same<S['TokenListJson'], TokenListJson>,
  NewTokenJson: true as Same<S['NewTokenJson'], NewTokenJson>,
  AddTokenJson: true as Same<S['AddTokenJson'], AddTokenJson>,
  AlertsJson: true as Same<S['AlertsJson'], AlertsJson>,
  AlertTestJson: true as Same<S['AlertTestJson'], AlertTestJson>,
  AlertTestResultJson: true as Same<S['AlertTestResultJson'], AlertTestResultJson>,
  HealthCaJson: true as Same<S['HealthCaJson'], HealthCaJson>,
  HealthPageJson: true as Same<S['HealthPageJson'], HealthPageJson>,
  HealthCheckJson: true as Same<S['HealthCheckJson'], HealthCheckJson>,
}

/** The 200 answer of an operation: its JSON, the XML or plain text, or void for an empty body ('undescribed': no operation). */
type Answer<Id extends keyof operations> = [Id] extends [never]
  ? 'undescribed'
  : operations[Id]['responses'] extends { 200: infer R }
    ? R extends { content: { 'application/json': infer J } } ? J : R extends { content: { 'application/xml': string } } ? string : R extends { content: { 'text/plain': string } } ? string : void
    : never
/** What svcc's call of the same name expects back. */
type Expects<K extends keyof typeof calls> = ReturnType<(typeof calls)[K]> extends ApiCall<infer T> ? T : never
/** svcc's call names where they differ from the operationId. */
type Renamed = { info: 'serverInfo'; bulkSync: 'bulkSyncRepo' }
type OpOf<K extends keyof typeof calls> = K extends keyof Renamed ? Renamed[K] : K extends keyof operations ? K : never

/** Names of svcc's calls whose expected answer differs from the described one (never, when all agree). */
type AnswerMismatches = { [K in keyof typeof calls]: Same<Answer<OpOf<K>>, Expects<K>> extends true ? never : K }[keyof typeof calls]
const sameAnswers: [AnswerMismatches] extends [never] ? true : AnswerMismatches = true

t.test('generated types equal the wire types of src/api and the answers svcc expects (a type error otherwise)', async (t) => {
  t.ok(Object.values(sameSchemas).every((v) => v), `${Object.keys(sameSchemas).length} schemas`)
  t.equal(sameAnswers, true, "every call of svcc expects the described answer")
  for (const name of Object.keys(sameSchemas)) t.ok(OPENAPI.components.schemas[name], `${name} is a schema of the document`)
})
