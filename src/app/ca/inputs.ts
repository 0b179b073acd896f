/**
 * Checking what the JSON API receives and turning it into domain values: handles from URL paths, identity
 * certificates, and RFC 8183 documents given as XML or in their JSON form. Every identity certificate passes
 * inspectIdCert and every URI the RFC 8183 profile of idexchange-inspect.ts (issue 10). Failures are labelled AppErrors.
 */
import { checkAddParent, parentResponseFromJson, resourcesFromJson, type AddChildJson, type AddParentJson, type ParentResponseJson } from '../../api/cas.js'
import { publisherRequestFromJson, repositoryResponseFromJson, type PublisherRequestJson, type RepositoryResponseJson } from '../../api/pubd.js'
import { AppError, reasonOf, type ErrorLabel } from '../../errors.js'
import { inspectIdCert } from '../../protocol/id-cert.js'
import { decodeChildRequest, decodeParentResponse, decodePublisherRequest, decodeRepositoryResponse, type ParentResponse, type PublisherRequest, type RepositoryResponse } from '../../protocol/idexchange.js'
import { inspectChildRequest, inspectParentResponse, inspectPublisherRequest, inspectRepositoryResponse } from '../../protocol/idexchange-inspect.js'
import { ResourceSet, type ResourceSetText } from '../../resources/resource-set.js'
import { fromBase64, toBase64 } from '../../util/base64.js'
import { caHandle, childHandle, isWireHandle, publisherHandle, type CaHandle, type ChildHandle, type PublisherHandle } from '../../util/handle.js'

/** `parse(text)`: the handle, branded; or the AppError `label` with `args` and the reason the text is no handle. */
function handleOr<H extends string>(parse: (text: string) => H, text: string, label: ErrorLabel, args: Record<string, string> = {}): H {
  try {
    return parse(text)
  } catch (e) {
    throw new AppError(label, { ...args, reason: reasonOf(e) })
  }
}

/** A CA handle taken from a URL path: checked (404 comes from the lookup). */
export const caPath = (text: string): CaHandle => handleOr(caHandle, text, 'api-invalid-path-handle', { handle: text })

/** A child handle from a JSON body: checked, or 400 `api-invalid-body`. */
export const checkChild = (text: string): ChildHandle => handleOr(childHandle, text, 'api-invalid-body')

/** A child's resources as given in the JSON API (or by the testbed): parsed, or 400 `ca-child-resources-invalid` (issue 22 defect 9). */
export function childResources(child: string, json: AddChildJson['resources'] | undefined): ResourceSetText {
  try {
    return ResourceSet.parse(resourcesFromJson(json ?? {})).toJSON()
  } catch (e) {
    throw new AppError('ca-child-resources-invalid', { child, reason: reasonOf(e) }, { cause: e })
  }
}

/** A child's identity certificate given as base64 in the JSON API (`id_cert`): inspected as of `now`. */
export function checkIdCert(b64: string, now: Date): string {
  try {
    return toBase64(inspectIdCert(fromBase64(b64), now).der)
  } catch (e) {
    throw new AppError('ca-child-request-invalid-xml', { reason: `id_cert: ${reasonOf(e)}` }, { cause: e })
  }
}

/** An RFC 8183 child request as XML: decoded, and its identity certificate inspected as of `now`. */
export function childRequestInput(xml: string, now: Date): string {
  try {
    return toBase64(inspectChildRequest(decodeChildRequest(xml), now).idCert)
  } catch (e) {
    throw new AppError('ca-child-request-invalid-xml', { reason: reasonOf(e) }, { cause: e })
  }
}

/** A handle taken from a URL path: checked, or 400 `api-invalid-path-handle`. */
export const pathHandle = (text: string): PublisherHandle => handleOr(publisherHandle, text, 'api-invalid-path-handle', { handle: text })

/** A publisher handle from a publisher request: checked, or 400 `pub-request-invalid-xml`. */
export const checkedPublisherHandle = (text: string): PublisherHandle => handleOr(publisherHandle, text, 'pub-request-invalid-xml')

/** An RFC 8183 parent response from the API: raw XML, or `{"handle","response"}` JSON (`contact` as alias). */
export function parentInput(input: { json: unknown } | { xml: string }, pathName: string | undefined, now: Date): { name: string; response: ParentResponse } {
  try {
    if ('xml' in input) {
      const response = inspectParentResponse(decodeParentResponse(input.xml), now)
      return { name: pathName ?? response.parentHandle, response }
    }
    const problem = checkAddParent(input.json)
    if (problem) throw new AppError('api-invalid-body', { reason: problem })
    const j = input.json as AddParentJson & { contact?: ParentResponseJson }
    if (pathName !== undefined && pathName !== j.handle) throw new AppError('api-invalid-body', { reason: `the parent name '${j.handle}' in the body differs from '${pathName}' in the path` })
    const response = parentResponseFromJson(j.response ?? j.contact!)
    for (const h of [response.parentHandle, response.childHandle]) if (!isWireHandle(h)) throw new Error(`'${h}' is not a valid RFC 8183 handle`)
    return { name: j.handle, response: inspectParentResponse(response, now) }
  } catch (e) {
    if (e instanceof AppError) throw e
    throw new AppError('ca-parent-response-invalid-xml', { reason: reasonOf(e) })
  }
}

/** An RFC 8183 repository response from the API: raw XML, or `{"repository_response":{…}}` JSON. */
export function repoInput(input: { json: unknown } | { xml: string }, now: Date): RepositoryResponse {
  try {
    if ('xml' in input) return inspectRepositoryResponse(decodeRepositoryResponse(input.xml), now)
    const j = input.json as { repository_response?: RepositoryResponseJson } & Partial<RepositoryResponseJson>
    const r = j.repository_response ?? (j as RepositoryResponseJson)
    if (typeof r?.service_uri !== 'string' || typeof r.id_cert !== 'string' || typeof r.publisher_handle !== 'string' || typeof r.repo_info?.sia_base !== 'string') {
      throw new Error('expected {"repository_response":{"publisher_handle","id_cert","service_uri","repo_info":{"sia_base","rrdp_notification_uri"}}}')
    }
    return inspectRepositoryResponse(repositoryResponseFromJson(r), now)
  } catch (e) {
    throw new AppError('ca-repo-response-invalid-xml', { reason: reasonOf(e) })
  }
}

/** An RFC 8183 publisher request from the API: raw XML or its JSON form; the identity certificate inspected as of `now`. */
export function publisherRequestInput(input: { json: PublisherRequestJson } | { xml: string }, now: Date): PublisherRequest {
  try {
    return inspectPublisherRequest('xml' in input ? decodePublisherRequest(input.xml) : publisherRequestFromJson(input.json), now)
  } catch (e) {
    throw new AppError('pub-request-invalid-xml', { reason: reasonOf(e) })
  }
}
