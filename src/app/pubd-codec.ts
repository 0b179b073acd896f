/**
 * The publication server's CMS codec (RFC 8181 §2, profile of RFC 6492 §3.1): replies are signed with the server's
 * identity through a MessageSigner; publishers' messages are verified against their registered identity
 * certificate, with the signing time of the last accepted message per publisher as replay protection.
 */
import type { MessageCodec } from './pub-server.js'
import { MessageSigner, unwrapMessage } from '../protocol/signed-message.js'

export class PubdCodec implements MessageCodec {
  readonly idCert: Uint8Array
  private readonly lastSigningTime = new Map<string, Date>()

  constructor(private readonly signer: MessageSigner) {
    this.idCert = signer.idCert.der
  }

  sign(xml: string, now: Date): Promise<Uint8Array> {
    return this.signer.sign(xml, now)
  }

  verify(cms: Uint8Array, peer: { handle: string; idCert: Uint8Array }, now: Date): string {
    const last = this.lastSigningTime.get(peer.handle)
    const m = unwrapMessage(cms, { idCert: peer.idCert, now, ...(last ? { lastSigningTime: last } : {}) })
    this.lastSigningTime.set(peer.handle, m.signingTime)
    return m.xml
  }
}
