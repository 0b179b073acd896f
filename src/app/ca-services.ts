/**
 * What the CA application modules share: stores, signer, clock, configuration, the embedded publication server,
 * per-CA locks and identities. Built once by the manager; ca-manager.ts, ca-repo.ts, ca-parents.ts and
 * ca-children.ts all take it.
 */
import { randomBytes } from 'node:crypto'
import type { Config } from '../config.js'
import type { Logger } from '../log.js'
import type { Signer } from '../crypto/signer.js'
import { certAuthType } from '../ca/cert-auth.js'
import type { CaCommand } from '../ca/commands.js'
import type { CaContext } from '../ca/context.js'
import type { CaEvent } from '../ca/events.js'
import type { CaState } from '../ca/state.js'
import { AppError } from '../errors.js'
import { runCommand, type RunResult } from '../eventsourcing.js'
import { MessageSigner } from '../protocol/signed-message.js'
import type { Db } from '../store/db.js'
import { fromBase64 } from '../util/base64.js'
import { KeyedMutex } from './keyed-mutex.js'
import type { PublicationService } from './pubd/publication-service.js'
import type { ObjectsTiming } from './ca-objects.js'
import type { ReplayState } from '../protocol/replay.js'
import type { CaObjectsStore, CaStatusStore, CaStore } from '../store/interfaces.js'
import { SqliteCaStore } from '../store/ca-store.js'
import { SqliteCaObjectsStore } from '../store/ca-objects-store.js'
import { SqliteCaStatusStore } from '../store/ca-status-store.js'

export interface CaServicesOptions {
  config: Config
  db: Db
  signer: Signer
  log: Logger
  now: () => Date
  pub: PublicationService | undefined
  random?: (n: number) => Uint8Array
}

export class CaServices {
  readonly config: Config
  readonly signer: Signer
  readonly log: Logger
  readonly now: () => Date
  readonly pub: PublicationService | undefined
  readonly random: (n: number) => Uint8Array
  readonly cas: CaStore
  readonly objects: CaObjectsStore
  readonly status: CaStatusStore
  /** Serialises commands per CA. */
  readonly commands = new KeyedMutex()
  /** Serialises object updates and repository syncs per CA. */
  readonly publishing = new KeyedMutex()
  private readonly messageSigners = new Map<string, MessageSigner>()
  /** RFC 6492 replay protection per peer ('<ca>/<child>'): the newest signing time seen and its digests (protocol/replay.ts). */
  readonly replay = new Map<string, ReplayState>()

  constructor(o: CaServicesOptions) {
    this.config = o.config
    this.signer = o.signer
    this.log = o.log
    this.now = o.now
    this.pub = o.pub
    this.random = o.random ?? ((n) => new Uint8Array(randomBytes(n)))
    this.cas = new SqliteCaStore(o.db)
    this.objects = new SqliteCaObjectsStore(o.db)
    this.status = new SqliteCaStatusStore(o.db)
  }

  /** The current state of a CA, or 404 `ca-unknown`. */
  state(handle: string): CaState {
    const s = this.cas.load(handle)
    if (!s) throw new AppError('ca-unknown', { ca: handle })
    return s.state
  }

  /** Run a command on a CA under its lock; records it in the history. */
  run(handle: string, cmd: CaCommand, actor = 'admin-token'): Promise<RunResult<CaState, CaEvent>> {
    return this.commands.run(handle, () => runCommand(certAuthType(() => this.context()), this.cas, handle, cmd, { actor, now: this.now() }))
  }

  context(): CaContext {
    const t = this.config.timing
    return { now: this.now(), signer: this.signer, random: this.random, timing: { childCertValidSeconds: t.child_cert_valid_seconds, childCertReissueBeforeSeconds: t.child_cert_reissue_before_seconds } }
  }

  objectsTiming(): ObjectsTiming {
    const t = this.config.timing
    return {
      mftNextUpdateSeconds: t.mft_next_update_seconds, mftReissueSeconds: t.mft_reissue_seconds, roaValidSeconds: t.roa_valid_seconds,
      roaReissueBeforeSeconds: t.roa_reissue_before_seconds, roaAggregateThreshold: t.roa_aggregate_threshold, roaDeaggregateThreshold: t.roa_deaggregate_threshold,
    }
  }

  /** The CMS signer of a CA's RFC 6492/8181 messages (its identity key and certificate; cached). */
  messageSigner(s: CaState): MessageSigner {
    let m = this.messageSigners.get(s.handle)
    if (!m || m.idKey.keyId !== s.idKey) {
      m = new MessageSigner({ idKey: this.signer.signingKey(s.idKey), idCert: fromBase64(s.idCert), newEeKey: () => this.signer.oneOffKey() })
      this.messageSigners.set(s.handle, m)
    }
    return m
  }

  forget(handle: string): void {
    this.messageSigners.delete(handle)
  }
}
