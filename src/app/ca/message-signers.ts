/** The CMS signer of each CA's RFC 6492/8181 messages: its identity key and certificate (cached per CA). */
import type { CaState } from '../../ca/state.js'
import type { MessageSigner } from '../../protocol/signed-message.js'

/** Builds the message signer of an identity (key id and base64 certificate); the composition root provides it. */
export type MessageSignerFactory = (idKey: string, idCert: string) => MessageSigner

export class MessageSigners {
  private readonly cache = new Map<string, MessageSigner>()

  constructor(private readonly make: MessageSignerFactory) {}

  of(s: CaState): MessageSigner {
    let m = this.cache.get(s.handle)
    if (!m || m.idKey.keyId !== s.idKey) {
      m = this.make(s.idKey, s.idCert)
      this.cache.set(s.handle, m)
    }
    return m
  }

  forget(handle: string): void {
    this.cache.delete(handle)
  }
}
