/**
 * The part of the OpenAPI 3.0.3 object model (https://spec.openapis.org/oas/v3.0.3) that svc's API description
 * uses: just enough types to build the document in code and have the compiler check its shape. Used by
 * openapi-schemas.ts and openapi.ts; no third-party package (api/ stays dependency-free).
 */

export interface Reference {
  $ref: string
}

/** A Schema Object (OpenAPI 3.0 dialect of JSON Schema: `nullable`, no type arrays). */
export interface SchemaObject {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean'
  description?: string
  format?: string
  enum?: (string | number | boolean)[]
  pattern?: string
  minimum?: number
  maximum?: number
  nullable?: boolean
  properties?: Record<string, Schema>
  required?: string[]
  additionalProperties?: Schema | boolean
  items?: Schema
  allOf?: Schema[]
  oneOf?: Schema[]
  anyOf?: Schema[]
  example?: unknown
}

export type Schema = SchemaObject | Reference

export interface MediaType {
  schema: Schema
  example?: unknown
}

export interface Header {
  description: string
  schema: Schema
}

export interface Response {
  description: string
  headers?: Record<string, Header>
  content?: Record<string, MediaType>
}

export interface Parameter {
  name: string
  in: 'path' | 'query' | 'header'
  description: string
  required: boolean
  schema: Schema
}

export interface RequestBody {
  description: string
  required: boolean
  content: Record<string, MediaType>
}

export type SecurityRequirement = Record<string, string[]>

export interface Operation {
  operationId: string
  summary: string
  description?: string
  tags: string[]
  parameters?: Parameter[]
  requestBody?: RequestBody
  responses: Record<string, Response | Reference>
  /** Overrides the document's security: `[]` for the public endpoints. */
  security?: SecurityRequirement[]
}

export type HttpMethod = 'get' | 'post' | 'delete'

export interface Server {
  url: string
  description?: string
  variables?: Record<string, { default: string; description?: string }>
}

export type PathItem = { servers?: Server[] } & Partial<Record<HttpMethod, Operation>>

export interface OpenApiDocument {
  openapi: '3.0.3'
  info: { title: string; version: string; description: string; license: { name: string; url: string } }
  servers: Server[]
  security: SecurityRequirement[]
  tags: { name: string; description: string }[]
  paths: Record<string, PathItem>
  components: {
    schemas: Record<string, Schema>
    responses: Record<string, Response>
    securitySchemes: Record<string, { type: 'http'; scheme: 'bearer'; description: string }>
  }
}
