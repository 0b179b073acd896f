/**
 * One function per API endpoint, returning the ApiCall that `svcc` sends (or prints with `--api`). Paths follow
 * the spec's table and krill-reference.md §1.1; names mirror the manager methods (caList ↔ Manager.caList).
 */
import type { PublisherDetails, PublisherList, PublisherRequestJson, RepoStats, RepositoryResponseJson } from '../api/pubd.js'
import type { ServerInfo } from '../api/status.js'
import type { ApiCall, HttpMethod } from './api-client.js'

function call<T>(method: HttpMethod, path: string, expect: ApiCall<T>['expect'], body?: unknown): ApiCall<T> {
  return body === undefined ? { method, path, expect } : { method, path, expect, body }
}

/** Path segment encoding for handles (which may contain '/' for RFC 8183 peers). */
export function seg(s: string): string {
  return encodeURIComponent(s)
}

export const calls = {
  info: (): ApiCall<ServerInfo> => call('GET', '/stats/info', 'json'),
  authorized: (): ApiCall<void> => call('GET', '/api/v1/authorized', 'empty'),

  pubdPublishers: (): ApiCall<PublisherList> => call('GET', '/api/v1/pubd/publishers', 'json'),
  pubdPublisherAdd: (req: PublisherRequestJson): ApiCall<RepositoryResponseJson> => call('POST', '/api/v1/pubd/publishers', 'json', req),
  pubdPublisherShow: (p: string): ApiCall<PublisherDetails> => call('GET', `/api/v1/pubd/publishers/${seg(p)}`, 'json'),
  pubdPublisherRemove: (p: string): ApiCall<void> => call('DELETE', `/api/v1/pubd/publishers/${seg(p)}`, 'empty'),
  pubdPublisherResponse: (p: string): ApiCall<RepositoryResponseJson> => call('GET', `/api/v1/pubd/publishers/${seg(p)}/response.json`, 'json'),
  pubdStale: (seconds: number): ApiCall<PublisherList> => call('GET', `/api/v1/pubd/stale/${seconds}`, 'json'),
  pubdStats: (): ApiCall<RepoStats> => call('GET', '/api/v1/pubd/stats', 'json'),
}
