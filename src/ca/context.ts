/** What CA command processing may use besides the state: the clock, the signer (keys), randomness and timings. */
import type { Signer } from '../crypto/signer.js'

export interface CaContext {
  now: Date
  signer: Signer
  /** n random bytes (serial numbers); tests pass a deterministic source. */
  random(n: number): Uint8Array
  timing: {
    childCertValidSeconds: number
    childCertReissueBeforeSeconds: number
  }
  /** Yield to the event loop between slices of a long command (a large ROA delta); absent: run through. */
  pause?: () => Promise<void>
}
