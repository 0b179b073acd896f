/** RFC 8183 identity key rolls (issue 25; app/ca/id-roll-service.ts): what GET /api/v1/cas/{ca}/id answers. */

/** A CA's identity: the one in use, and a pending identity key roll with who still needs its new certificate. */
export interface IdRollJson {
  current: { hash: string; signer?: string }
  pending?: { hash: string; signer?: string; id_cert: string; waiting_for: string[] }
}

/** POST /api/v1/cas/{ca}/id/roll: where the new key is made (default: default_signer). */
export interface IdRollInitJson {
  signer?: string
}
