/**
 * The storage interface of signers and their keys (design.md §10, issue 25). Re-exported by store/interfaces.ts.
 */

/** A signer svcd has used: its handle (stable), the name the config gives it now, and what it says of itself. */
export interface SignerRecord {
  handle: string
  name: string
  type: string
  /** Token label and serial, library path: never the PIN. */
  info: Record<string, string>
  /** When svcd last opened it (ms since the epoch). */
  seen: number
}

export interface SignerRegistryStore {
  /** Insert or update the signer with this handle (a renamed signer keeps its handle and its keys). */
  saveSigner(r: SignerRecord): void
  signers(): SignerRecord[]
  /** The handle of the signer that holds `keyId`; undefined for keys made before signers were recorded. */
  keyHandle(keyId: string): string | undefined
  recordKey(keyId: string, handle: string, created: number): void
  forgetKey(keyId: string): void
  /** Keys recorded per signer handle. */
  countKeys(): Record<string, number>
}
