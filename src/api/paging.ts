/**
 * Lists paged on the server (design.md §8: a long list is searched, sorted and paged by svcd, never in the browser):
 * GET /api/v1/cas/{ca}/children, GET /api/v1/cas and GET /api/v1/pubd/publishers with paging parameters, and the history's `q` and
 * `order`. The parameters are the ones of GET …/routes/page (api/cas.ts RoasQuery): `offset`, `limit`, `q` (a
 * case-insensitive text), `sort` (a key of the list) and `order` (asc or desc); bad ones are a 400
 * api-invalid-query naming the parameter. A page answers the matches in all (`total`) with its `offset` and `limit`.
 *
 * Krill's shapes stay as they are: GET /cas and GET /pubd/publishers without any of these parameters answer Krill's
 * `{"cas":[{"handle"}]}` and `{"publishers":[{"handle"}]}`; with them, the same objects (publishers with richer
 * rows) and `total`, `offset`, `limit`.
 */
import type { ResourceSetText } from '../resources/resource-set.js'

export const LIST_PAGE_DEFAULT = 100
export const LIST_PAGE_MAX = 1_000
/** The longest search text. */
export const LIST_QUERY_MAX = 200
/** The paging parameters: any one of them asks a paged answer where the plain one is Krill's. */
export const PAGING_PARAMS = ['offset', 'limit', 'q', 'sort', 'order'] as const

/** The page parameters of every paged list; `sort` is one of the list's keys. */
export interface ListQuery<S extends string> {
  offset: number
  limit: number
  q: string
  sort: S
  order: 'asc' | 'desc'
}

/** Where a page stands: the matches in all, and the window asked for. */
export interface PageInfo {
  total: number
  offset: number
  limit: number
}

//------------ CAs (GET /api/v1/cas?…) ------------------------------------------------------------------------------------

/** The one sort key of the CAs: handle. */
export const CA_SORTS = ['handle'] as const
export type CaSort = (typeof CA_SORTS)[number]

/** A page of CAs: Krill's `{"cas":[{"handle"}]}` with `total`, `offset`, `limit`; `q` looks in the handle. */
export interface CasPageJson extends PageInfo {
  cas: { handle: string }[]
}

//------------ Children (GET /api/v1/cas/{ca}/children) -------------------------------------------------------------

/** Sort keys of the children: handle (default) or state (active before suspended). */
export const CHILD_SORTS = ['handle', 'state'] as const
export type ChildSort = (typeof CHILD_SORTS)[number]

/** One child as the list shows it: the fields of GET …/children/{child} without the identity certificate. */
export interface ChildRowJson {
  handle: string
  state: 'active' | 'suspended'
  entitled_resources: ResourceSetText
}

/** A page of children; `q` looks in the handle and the resources' text. */
export interface ChildrenPageJson extends PageInfo {
  children: ChildRowJson[]
}

//------------ Publishers (GET /api/v1/pubd/publishers?…) --------------------------------------------------------------

/** Sort keys of the publishers: handle (default), objects, size, last_update (never-published first). */
export const PUBLISHER_SORTS = ['handle', 'objects', 'size', 'last_update'] as const
export type PublisherSort = (typeof PUBLISHER_SORTS)[number]

/** One publisher as the paged list shows it: Krill's `{handle}` and its figures from the stats. */
export interface PublisherRowJson {
  handle: string
  objects: number
  size: number
  /** When it last published (ISO 8601), or null. */
  last_update: string | null
  /** With ?stale=<seconds>: it has not published for that long (a never-published one counts from its creation). */
  stale?: boolean
}

/** A page of publishers; `q` looks in the handle. */
export interface PublishersPageJson extends PageInfo {
  publishers: PublisherRowJson[]
}
