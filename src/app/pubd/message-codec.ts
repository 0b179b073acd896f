/**
 * The publication server's CMS codec (RFC 8181 §2, profile of RFC 6492 §3.1): replies are signed with the server's
 * identity through a MessageSigner; publishers' messages are verified against their registered identity
 * certificate. Replay protection (signing time and content digest per publisher) is protocol/replay.ts, kept by the
 * RFC 8181 endpoint in the database. The composition root builds the codec and hands it to the PublisherService.
 */
import { MessageSigner, unwrapMessage } from '../../protocol/signed-message.js'
import { sha256Hex } from '../../crypto/digest.js'

/** Signs our replies and verifies publishers' messages (RFC 8181 §2, CMS as RFC 6492 §3.1). */
export interface MessageCodec {
  /** Our BPKI identity certificate (DER), as given in repository responses. */
  readonly idCert: Uint8Array
  sign(xml: string, now: Date): Promise<Uint8Array>
  /** A message verified against the peer's identity certificate; throws with a reason otherwise. */
  verify(cms: Uint8Array, peer: { handle: string; idCert: Uint8Array }, now: Date): VerifiedQuery
}

/** A verified RFC 8181 message: its XML, signing time and content digest (hex SHA-256, for replay protection). */
export interface VerifiedQuery {
  xml: string
  signingTime: Date
  digest: string
}

export class PubdCodec implements MessageCodec {
  readonly idCert: Uint8Array

  constructor(private readonly signer: MessageSigner) {
    this.idCert = signer.idCert.der
  }

  sign(xml: string, now: Date): Promise<Uint8Array> {
    return this.signer.sign(xml, now)
  }

  verify(cms: Uint8Array, peer: { handle: string; idCert: Uint8Array }, now: Date): VerifiedQuery {
    const m = unwrapMessage(cms, { idCert: peer.idCert, now })
    return { xml: m.xml, signingTime: m.signingTime, digest: sha256Hex(m.content) }
  }
}
