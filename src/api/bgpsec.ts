/**
 * Wire types of BGPsec router keys (krill-reference.md §1.1 "BGPsec", krill:src/api/bgpsec.rs): the listing of
 * GET /api/v1/cas/{ca}/bgpsec and the update of POST /api/v1/cas/{ca}/bgpsec, with its body check. A router key is
 * named as Krill's `BgpSecAsnKey`: ROUTER-<asn as 8 hex digits>-<key identifier in hex>.
 */
import { ASN_MAX } from '../resources/asn.js'

/** One router key: its AS, key identifier (hex) and the router's request (base64 DER PKCS#10). */
export interface BgpSecCsrInfoJson {
  asn: number
  key_identifier: string
  csr: string
}

/** POST /api/v1/cas/{ca}/bgpsec: `{"add":[{"asn":65000,"csr":"<base64 DER>"}],"remove":["ROUTER-0000FDE8-<key id>"]}`. */
export interface BgpSecDefinitionUpdatesJson {
  add: { asn: number; csr: string }[]
  remove: string[]
}

const obj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isAsn = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= ASN_MAX
export const ROUTER_KEY = /^ROUTER-[0-9A-Fa-f]{8}-[0-9A-Fa-f]{40}$/

export function checkBgpSecDefinitionUpdates(v: unknown): string | undefined {
  if (!obj(v) || !Array.isArray(v.add) || !Array.isArray(v.remove)) return 'expected {"add":[{"asn":…,"csr":"<base64>"}],"remove":["ROUTER-…"]}'
  for (const a of v.add as unknown[]) {
    if (!obj(a) || !isAsn(a.asn) || typeof a.csr !== 'string' || !/^[A-Za-z0-9+/]+=*$/.test(a.csr)) return `each addition needs "asn" (an AS number, 0 to ${ASN_MAX}) and "csr" (base64 DER)`
  }
  for (const k of v.remove as unknown[]) if (typeof k !== 'string' || !ROUTER_KEY.test(k)) return `${JSON.stringify(k)} is not a router key name (ROUTER-<asn as 8 hex digits>-<40 hex digits of key id>)`
  return undefined
}
