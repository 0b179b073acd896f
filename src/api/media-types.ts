/**
 * The media types svcd's HTTP endpoints speak, for the edges (http/ routes and client/): JSON for the API, and the RFC
 * 6492 and RFC 8181 types, defined with their protocols (protocol/provisioning.ts, protocol/publication.ts).
 */
export { UPDOWN_CONTENT_TYPE } from '../protocol/provisioning.js'
export { PUBLICATION_CONTENT_TYPE } from '../protocol/publication.js'

/** The API's JSON bodies, exactly (Koa's `ctx.type = 'json'` would add `; charset=utf-8`). */
export const JSON_CONTENT_TYPE = 'application/json'
