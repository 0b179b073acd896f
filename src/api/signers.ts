/**
 * Wire types of the signers (design.md §10, issue 25): GET /api/v1/signers lists the configured signers with what
 * they hold and whether they can sign; GET /api/v1/cas/{ca}/keys shows a CA's keys with the signer of each. The PIN of a
 * token is never part of them. Also the optional body of the key roll inits: the signer the new keys are made in.
 */

/** Why a signer cannot sign now (an error label of errors.ts, its message, and since when). */
export interface SignerProblemJson {
  label: string
  message: string
  since: string
}

/** One configured signer. */
export interface SignerJson {
  name: string
  type: 'OpenSSL' | 'PKCS#11'
  /** Its handle (kept in the token for PKCS#11: a renamed signer keeps its keys); null until a token was ever opened. */
  handle: string | null
  /** Whether new CA keys are made here (`default_signer`). */
  default: boolean
  /** Whether one-off EE keys come from here (`one_off_signer`). */
  one_off: boolean
  /** PKCS#11: the token's label and serial (when it was opened) and the library. */
  token_label?: string
  serial?: string
  lib_path?: string
  /** Persistent keys recorded for this signer (the key directory; keys from before signers were recorded are not counted). */
  keys: number
  available: boolean
  problem: SignerProblemJson | null
  /** Operations since svcd started. */
  operations: { sign: number; sign_errors: number; keygen: number; keygen_errors: number }
}

/** GET /api/v1/signers. */
export interface SignerListJson {
  signers: SignerJson[]
}

/** One key of a CA's resource class (GET /api/v1/cas/{ca}/keys). */
export interface CaKeyJson {
  key_id: string
  /** The configured signer that holds the key; absent when it is not known (a test's injected signer). */
  signer?: string
  /** pending: waiting for its first certificate; active: current; new: made by a key roll; old: kept until the roll finishes. */
  state: 'pending' | 'active' | 'new' | 'old'
  /** The certificate the parent issued for the key, null while it is requested. */
  cert: { uri: string; not_before: string; not_after: string } | null
}

/** GET /api/v1/cas/{ca}/keys: the keys of every resource class, and the state of its key roll (Krill's key states). */
export interface CaKeysJson {
  handle: string
  resource_classes: { name: string; parent: string; key_state: string; keys: CaKeyJson[] }[]
}

/** The optional body of POST …/keys/roll_init and /api/v1/ta/keyroll/init. */
export interface KeyRollInitJson {
  signer?: string
}

/** The check of a key roll init body: an object with at most a `signer` name. */
export function checkKeyRollInit(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'must be a JSON object'
  for (const k of Object.keys(v)) if (k !== 'signer') return `unknown field '${k}'`
  const s = (v as KeyRollInitJson).signer
  if (s !== undefined && (typeof s !== 'string' || s === '' || s.length > 100 || /[\u0000-\u001f]/.test(s))) return "'signer' must be a signer name (1 to 100 printable characters)"
  return undefined
}
