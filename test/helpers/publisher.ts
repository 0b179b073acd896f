/**
 * A test publisher speaking real RFC 8181 to svcd: its own identity key and BPKI certificate, its RFC 8183
 * publisher request, and CMS-wrapped queries over HTTPS whose signed replies it verifies against the server's
 * identity certificate from the repository response.
 */
import { createIdCert } from '../../src/protocol/id-cert.js'
import { decodeRepositoryResponse, encodePublisherRequest, type RepositoryResponse } from '../../src/protocol/idexchange.js'
import { decodePublicationReply, encodePublicationQuery, type PublicationQuery, type PublicationReply } from '../../src/protocol/publication.js'
import { MessageSigner, unwrapMessage } from '../../src/protocol/signed-message.js'
import { httpsRequest } from './daemon.js'
import { testKey } from './keys.js'

export { testKey }

export class TestPublisher {
  readonly idKey = testKey()
  readonly idCert: Uint8Array
  readonly signer: MessageSigner
  response: RepositoryResponse | undefined

  constructor(readonly handle: string, now = new Date()) {
    this.idCert = createIdCert(this.idKey, now)
    this.signer = new MessageSigner({ idKey: this.idKey, idCert: this.idCert })
    this.signer.useEeKey(testKey(), now)
  }

  requestXml(): string {
    return encodePublisherRequest({ publisherHandle: this.handle, idCert: this.idCert })
  }

  useResponse(xml: string): RepositoryResponse {
    this.response = decodeRepositoryResponse(xml)
    return this.response
  }

  /** The raw HTTP exchange: status, content type and body bytes. */
  async post(body: Uint8Array | string, contentType = 'application/rpki-publication', url = this.response!.serviceUri) {
    const res = await httpsRequest(url, { method: 'POST', headers: { 'Content-Type': contentType }, body: Buffer.from(body), binary: true })
    return res
  }

  /** Wrap, send, verify the server's signed reply, decode it. */
  async send(query: PublicationQuery, now = new Date()): Promise<PublicationReply> {
    const cms = await this.signer.sign(encodePublicationQuery(query), now)
    return this.reply(await this.post(cms))
  }

  /** Verify and decode a reply: the server's signature must check against its identity certificate. */
  reply(res: { status: number; raw: Buffer; headers: Record<string, unknown> }): PublicationReply {
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.raw.toString()}`)
    const m = unwrapMessage(new Uint8Array(res.raw), { idCert: this.response!.idCert, now: new Date() })
    return decodePublicationReply(m.xml)
  }

  keyId(): string {
    return this.idKey.keyId
  }
}
