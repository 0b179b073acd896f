/**
 * A test child speaking real RFC 6492 to svcd: its own identity, its child request, CMS-wrapped up-down messages
 * over HTTPS, and the parent's signed replies verified against the parent response's identity certificate.
 */
import { createIdCert } from '../../src/protocol/id-cert.js'
import { decodeParentResponse, encodeChildRequest, type ParentResponse } from '../../src/protocol/idexchange.js'
import { decodeProvisioning, encodeProvisioning, type ProvisioningMessage, type ProvisioningPayload } from '../../src/protocol/provisioning.js'
import { MessageSigner, unwrapMessage } from '../../src/protocol/signed-message.js'
import type { SigningKey } from '../../src/crypto/signer.js'
import { httpsRequest } from './daemon.js'
import { testKey } from './keys.js'

export class TestChild {
  readonly idKey: SigningKey = testKey()
  readonly idCert: Uint8Array
  readonly signer: MessageSigner
  response: ParentResponse | undefined
  /** The last reply's XML, for schema checks. */
  lastReplyXml = ''

  constructor(readonly handle: string, now = new Date()) {
    this.idCert = createIdCert(this.idKey, now)
    this.signer = new MessageSigner({ idKey: this.idKey, idCert: this.idCert })
    this.signer.useEeKey(testKey(), now)
  }

  requestXml(): string {
    return encodeChildRequest({ childHandle: this.handle, idCert: this.idCert })
  }

  useResponse(xml: string): void {
    this.response = decodeParentResponse(xml)
  }

  /** Encode, wrap, POST, verify and decode; `message` overrides sender/recipient for negative tests. */
  async send(payload: ProvisioningPayload, message: Partial<ProvisioningMessage> = {}, signer = this.signer): Promise<ProvisioningPayload> {
    const r = this.response!
    const xml = encodeProvisioning({ sender: r.childHandle, recipient: r.parentHandle, payload, ...message })
    const cms = await signer.sign(xml, new Date())
    const res = await httpsRequest(r.serviceUri, { method: 'POST', headers: { 'Content-Type': 'application/rpki-updown' }, body: Buffer.from(cms) })
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body}`)
    const m = unwrapMessage(new Uint8Array(res.raw), { idCert: r.idCert, now: new Date() })
    this.lastReplyXml = m.xml
    return decodeProvisioning(m.xml).payload
  }
}
