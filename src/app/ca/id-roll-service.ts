/**
 * RFC 8183 identity key rolls of a CA (issue 25, beyond Krill; domain rules in ca/id-roll.ts).
 *
 * `roll`: a new identity key (the default signer or a named one) and self-signed certificate (id-roll-init). Every
 * parent that is a CA of this svcd gets the new certificate for its child at once (child-update: it accepts the
 * previous one until the child's first message signed with the new), and so does the embedded publication server for
 * the CA's publisher (the in-process path accepts the pending identity too). When no parent or repository is
 * elsewhere, the roll is finished at once: the CA signs with the new key and the old one is destroyed; no RFC
 * 6492/8181 exchange can fail on the way, since the old identity is accepted until the switch and the new one after.
 *
 * Otherwise the CA's child and publisher requests show the new certificate for the operator to hand over, and the CA
 * keeps signing with the old key until the operator confirms with `finish` (svcc id roll finish): a parent or
 * repository elsewhere cannot tell us it has the new certificate, and a message signed with a key it does not know yet
 * would fail, so confirmation is explicit.
 */
import type { IdRollJson } from '../../api/id-roll.js'
import { AppError } from '../../errors.js'
import type { Logger } from '../../log.js'
import type { Signer } from '../../crypto/signer.js'
import { createIdCert, idCertInfo } from '../../protocol/id-cert.js'
import { fromBase64, toBase64 } from '../../util/base64.js'
import type { CaState } from '../../ca/state.js'
import type { CaCommands } from './ca-commands.js'
import { caPath } from './inputs.js'
import type { EmbeddedRepository } from './ports.js'

export interface IdRollDeps {
  commands: CaCommands
  signer: Signer
  publication: EmbeddedRepository | undefined
  /** The CA of this svcd behind an RFC 6492 service URI, if it is one (compose.ts). */
  localParent: (serviceUri: string) => string | undefined
  /** After the switch: the CA's parents are asked again (sync), signed with the new identity. */
  syncParents: (ca: string) => void
  now: () => Date
  log: Logger
}


export class IdRollService {
  constructor(private readonly d: IdRollDeps) {}

  show(ca: string): IdRollJson {
    const s = this.d.commands.state(caPath(ca))
    const signer = (key: string) => {
      const name = this.d.signer.signerOf?.(key)
      return name ? { signer: name } : {}
    }
    return {
      current: { hash: idCertInfo(fromBase64(s.idCert)).hash, ...signer(s.idKey) },
      ...(s.idNext ? { pending: { hash: idCertInfo(fromBase64(s.idNext.idCert)).hash, ...signer(s.idNext.idKey), id_cert: s.idNext.idCert, waiting_for: this.elsewhere(s) } } : {}),
    }
  }

  /** Start a roll (the body's `signer`: where the new key is made); finished at once when nobody is elsewhere. */
  async roll(ca: string, opts: { signer?: string } = {}): Promise<IdRollJson> {
    const handle = caPath(ca)
    const d = this.d
    if (d.commands.state(handle).idNext) throw new AppError('ca-id-roll-pending', { ca: handle })
    const keyId = await d.signer.createKey(opts.signer !== undefined ? { signer: opts.signer } : undefined)
    let s: CaState
    try {
      const idCert = toBase64(createIdCert(d.signer.signingKey(keyId), d.now()))
      s = (await d.commands.run(handle, { type: 'id-roll-init', idKey: keyId, idCert })).state
    } catch (e) {
      d.signer.destroyKey(keyId)
      throw e
    }
    d.log.info('identity key roll initiated', { ca: handle, key: keyId })
    await this.updateLocal(s)
    if (this.elsewhere(s).length === 0) await this.finish(handle)
    return this.show(handle)
  }

  /** Switch to the new identity; the old key is destroyed. */
  async finish(ca: string): Promise<IdRollJson> {
    const handle = caPath(ca)
    const d = this.d
    const r = await d.commands.run(handle, { type: 'id-roll-finish' })
    const finished = r.events.find((e) => e.type === 'id-key-roll-finished')
    if (finished?.type === 'id-key-roll-finished') d.signer.destroyKey(finished.oldKey)
    d.log.info('identity key roll finished', { ca: handle, key: r.state.idKey })
    d.syncParents(handle)
    return this.show(handle)
  }

  /** The parents in this svcd and the embedded repository learn the new certificate (the old one stays accepted). */
  private async updateLocal(s: CaState): Promise<void> {
    const next = s.idNext!
    for (const p of Object.values(s.parents)) {
      const parent = this.d.localParent(p.serviceUri)
      if (parent === undefined) continue
      await this.d.commands.run(parent, { type: 'child-update', handle: p.childHandle, idCert: next.idCert })
    }
    for (const repo of [s.repo, s.oldRepo]) {
      if (repo?.embedded && this.d.publication?.findPublisher(repo.publisherHandle)) this.d.publication.publisherIdCertUpdate(repo.publisherHandle, fromBase64(next.idCert))
    }
  }

  /** Who must still be given the new certificate by the operator: parents and a repository elsewhere. */
  private elsewhere(s: CaState): string[] {
    const out = Object.values(s.parents).filter((p) => this.d.localParent(p.serviceUri) === undefined).map((p) => `parent '${p.name}'`)
    if (s.repo && !(s.repo.embedded && this.d.publication)) out.push(`repository ${s.repo.serviceUri}`)
    return out
  }
}
