/**
 * The publication server's CMS codec (RFC 8181 §2, profile of RFC 6492 §3.1): replies are signed with the server's
 * identity through a MessageSigner; publishers' messages are verified against their registered identity
 * certificate. Replay protection (signing time and content digest per publisher) is pubd/replay.ts, kept by the
 * PubServer in the database.
 */
import { createHash } from 'node:crypto'
import type { MessageCodec, VerifiedQuery } from './pub-server.js'
import { MessageSigner, unwrapMessage } from '../protocol/signed-message.js'

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
    return { xml: m.xml, signingTime: m.signingTime, digest: createHash('sha256').update(m.content).digest('hex') }
  }
}
