/**
 * Wire types of signed checklists (RFC 9323): the request of POST /api/v1/cas/{ca}/rsc (file names and SHA-256
 * digests, never the files; resources and validity optional) with its body check, and the answer (the RSC as base64
 * DER, to be saved as a .sig file). svc's own: neither Krill nor RIPE NCC's CA signs RSCs.
 */
import type { ResourceSetText } from '../resources/resource-set.js'

/** POST /api/v1/cas/{ca}/rsc: `{"files":[{"name":"a.txt","sha256":"<64 hex>"}],"resources":{"asn":"AS65000"},"validity_days":30}`. */
export interface RscSignJson {
  files: { name: string; sha256: string }[]
  /** Default: everything the CA's current key holds. An absent family is empty. */
  resources?: { asn?: string; ipv4?: string; ipv6?: string }
  /** Default 365; the EE certificate never outlives the CA's. */
  validity_days?: number
}

/** The answer: the signed checklist and what its EE certificate says. */
export interface RscSignedJson {
  /** The RSC (CMS signed object, DER) in base64. */
  rsc: string
  resources: ResourceSetText
  not_before: string
  not_after: string
  /** The EE certificate's serial number, decimal. */
  serial: string
}

export const RSC_MAX_VALIDITY_DAYS = 3650

const obj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

export function checkRscSign(v: unknown): string | undefined {
  if (!obj(v) || !Array.isArray(v.files)) return 'expected {"files":[{"name":…,"sha256":"<64 hex digits>"}],"resources":{…},"validity_days":…}'
  for (const f of v.files as unknown[]) {
    if (!obj(f) || typeof f.name !== 'string' || typeof f.sha256 !== 'string') return 'each file needs "name" and "sha256" (strings)'
  }
  if (v.resources !== undefined) {
    if (!obj(v.resources)) return '"resources" must be an object with "asn", "ipv4" and "ipv6" (text)'
    for (const [k, x] of Object.entries(v.resources)) {
      if (k !== 'asn' && k !== 'ipv4' && k !== 'ipv6') return `"resources": unknown field "${k}" (asn, ipv4, ipv6)`
      if (typeof x !== 'string') return `"resources"."${k}" must be text`
    }
  }
  const days = v.validity_days
  if (days !== undefined && (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > RSC_MAX_VALIDITY_DAYS)) {
    return `"validity_days" must be a whole number of days from 1 to ${RSC_MAX_VALIDITY_DAYS}`
  }
  return undefined
}
