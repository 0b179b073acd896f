/**
 * Wire types of the embedded trust anchor's key roll (RFC 9691; README "TA key roll"): GET /api/v1/ta/keyroll shows
 * the TA's keys, POST /api/v1/ta/keyroll/init and …/activate change them (empty bodies, empty answers).
 */

/** One key of the trust anchor: its key identifier, where its certificate is (the TAL's URIs) and where its TAL is. */
export interface TaKeyJson {
  key_id: string
  /** https URI, then rsync URI of the key's self-signed certificate. */
  uris: string[]
  /** Where the TAL of this key is served, when it is served (/ta/ta.tal for the current key, /ta/ta-next.tal for the successor). */
  tal_uri?: string
  /** The configured signer that holds the key (issue 25); absent when unknown. */
  signer?: string
}

/** GET /api/v1/ta/keyroll. */
export interface TaKeyRollJson {
  /** `active` (one key), `roll_new` (a successor waits for activation), `roll_old` (the previous key is still published). */
  state: 'active' | 'roll_new' | 'roll_old'
  current: TaKeyJson
  /** The successor key (after `svcc ta keyroll init`). */
  next?: TaKeyJson
  /** The previous key after activation, published until `retire_at`. */
  old?: TaKeyJson & { retire_at: string }
  /** Seconds the previous key stays published after activation ([testbed] ta_keyroll_old_key_seconds). */
  old_key_seconds: number
}
