/**
 * The embedded trust anchor's key roll as a service (RFC 9691; README "TA key roll"; the rules in ca/ta-keyroll.ts):
 * `init` publishes a successor key with its own TA certificate, named in the current key's TAK, and serves its TAL at
 * /ta/ta-next.tal; `activate` makes it current (the testbed CA is re-issued under it; /ta/ta.tal serves its TAL) and
 * schedules the retirement of the old key ([testbed] ta_keyroll_old_key_seconds later), a history entry of its own.
 * Also serves each key's certificate by its https name (/ta/ta.cer, /ta/ta-<KEYID>.cer).
 */
import type { CaCommands } from '../app/ca/ca-commands.js'
import type { TaskScheduling } from '../app/ca/ports.js'
import type { TaKeyJson, TaKeyRollJson } from '../api/ta.js'
import { taClass } from '../ca/ta-keyroll.js'
import type { CaState, TaCertInfo } from '../ca/state.js'
import { AppError } from '../errors.js'
import type { Logger } from '../log.js'
import { decodeCert } from '../objects/cert.js'
import { fromBase64 } from '../util/base64.js'
import { sha256Hex } from '../crypto/digest.js'
import { talText, TA_HANDLE } from './testbed.js'

export const TA_KEYROLL_FINISH = 'ta-keyroll-finish'

export interface TaKeyRollServiceDeps {
  /** Each step is a command; its events decide what follows (app/ca/follow-ups.ts: publication), awaited here. */
  commands: Pick<CaCommands, 'exists' | 'state' | 'run'>
  tasks: Pick<TaskScheduling, 'schedule'>
  now: () => Date
  log: Logger
  serviceUri: string
  /** How long the previous key stays published after activation (RFC 9691: RPs move to the successor meanwhile). */
  oldKeySeconds: number
  /** The signer holding a key, shown beside each key (SignerSet.signerOf; issue 25). */
  signerOf?: (keyId: string) => string | undefined
  /** A roll into a named signer may start (app/signers/signer-service.ts requireReady). */
  signerReady?: (name: string) => void
  /**
   * Whether the embedded repository's RRDP and rsync outputs both hold `uri` with this content (hex SHA-256; issue 26
   * §4): a TAL is served only then. Without it (no embedded repository), TALs are served as soon as the key exists.
   */
  published?: (uri: string, sha256: string) => boolean
}

export class TaKeyRollService {
  constructor(private readonly d: TaKeyRollServiceDeps) {}

  /** GET /api/v1/ta/keyroll: the TA's keys and where their TALs are. */
  taKeyRoll(): TaKeyRollJson {
    const s = this.d.commands.state(TA_HANDLE)
    const ta = this.ta(s)
    const rc = taClass(s)
    const current = this.keyJson(ta, rc?.current?.keyId, `${this.d.serviceUri}ta/ta.tal`)
    const out: TaKeyRollJson = { state: ta.next ? 'roll_new' : ta.old ? 'roll_old' : 'active', current, old_key_seconds: this.d.oldKeySeconds }
    if (ta.next) out.next = this.keyJson(ta.next, rc?.next?.keyId, `${this.d.serviceUri}ta/ta-next.tal`)
    if (ta.old) out.old = { ...this.keyJson(ta.old, rc?.old?.keyId), retire_at: this.retireAt(s).toISOString() }
    return out
  }

  /**
   * POST /api/v1/ta/keyroll/init: a successor key with its certificate; published at once. With `signer` the successor
   * key is made there (refused before anything changes when that signer is unknown or cannot make keys now).
   */
  async taKeyRollInit(actor?: string, signer?: string): Promise<void> {
    this.d.commands.state(TA_HANDLE)
    if (signer !== undefined) this.d.signerReady?.(signer)
    await (await this.d.commands.run(TA_HANDLE, signer === undefined ? { type: 'ta-keyroll-init' } : { type: 'ta-keyroll-init', signer }, actor)).followUps
    this.d.log.info('TA key roll: successor key published', { next_tal: `${this.d.serviceUri}ta/ta-next.tal` })
  }

  /** POST /api/v1/ta/keyroll/activate: the successor becomes current; the old key is retired later (a scheduled task). */
  async taKeyRollActivate(actor?: string): Promise<void> {
    this.d.commands.state(TA_HANDLE)
    await (await this.d.commands.run(TA_HANDLE, { type: 'ta-keyroll-activate' }, actor)).followUps
    const s = this.d.commands.state(TA_HANDLE)
    this.d.tasks.schedule(TA_KEYROLL_FINISH, TA_HANDLE, '', this.retireAt(s).getTime())
    this.d.log.info('TA key roll: successor key activated', { retire_at: this.retireAt(s).toISOString() })
  }

  /** At start: an activated roll has its retirement scheduled (the task may predate this version or have been lost). */
  resume(): void {
    const s = this.d.commands.exists(TA_HANDLE) ? this.d.commands.state(TA_HANDLE) : undefined
    if (s?.ta?.old) this.d.tasks.schedule(TA_KEYROLL_FINISH, TA_HANDLE, '', this.retireAt(s).getTime(), { earlier: true })
  }

  /** The scheduled task: retire the old key once its time is up; answers when to look again (undefined: done). */
  async finishDue(ca: string): Promise<number | undefined> {
    const s = this.d.commands.state(ca)
    if (!s.ta?.old) return undefined
    const at = this.retireAt(s).getTime()
    if (this.d.now().getTime() < at) return at
    await (await this.d.commands.run(ca, { type: 'ta-keyroll-finish' }, 'svc')).followUps
    this.d.log.info('TA key roll: previous key retired, its objects withdrawn', { ca })
    return undefined
  }

  /** The TAL of the successor key (/ta/ta-next.tal), or undefined when no TA key roll is in progress. */
  nextTal(): string | undefined {
    const next = this.d.commands.exists(TA_HANDLE) ? this.d.commands.state(TA_HANDLE).ta?.next : undefined
    return next && talText(next, decodeCert(fromBase64(next.certDer)).spki)
  }

  /**
   * GET /ta/ta.tal (`current`) and /ta/ta-next.tal (`next`): the TAL once the certificate it names is in both the
   * RRDP and the rsync output with the same bytes (issue 26 §4: a relying party that reads it finds the certificate
   * at once over either transport); undefined before, or when there is no such key.
   */
  servedTal(which: 'current' | 'next'): string | undefined {
    const ta = this.d.commands.exists(TA_HANDLE) ? this.d.commands.state(TA_HANDLE).ta : undefined
    const key = which === 'current' ? ta : ta?.next
    if (!key) return undefined
    const der = fromBase64(key.certDer)
    if (this.d.published && !this.d.published(key.rsyncUri, sha256Hex(der))) return undefined
    return talText(key, decodeCert(der).spki)
  }

  /** The certificate of whichever TA key is published at https name `file` (ta.cer, ta-<KEYID>.cer), if any. */
  keyCert(file: string): Uint8Array | undefined {
    const ta = this.d.commands.exists(TA_HANDLE) ? this.d.commands.state(TA_HANDLE).ta : undefined
    const uri = `${this.d.serviceUri}ta/${file}`
    const c = ta && [ta, ta.next, ta.old].find((k) => k?.httpsUri === uri)
    return c ? fromBase64(c.certDer) : undefined
  }

  private ta(s: CaState): NonNullable<CaState['ta']> {
    if (!s.ta) throw new AppError('api-unknown-resource', { path: '/api/v1/ta/keyroll' })
    return s.ta
  }

  private retireAt(s: CaState): Date {
    return new Date(Date.parse(s.ta?.activatedAt ?? this.d.now().toISOString()) + this.d.oldKeySeconds * 1000)
  }

  private keyJson(c: TaCertInfo, keyId: string | undefined, talUri?: string): TaKeyJson {
    const signer = keyId === undefined ? undefined : this.d.signerOf?.(keyId)
    return { key_id: keyId ?? '', uris: [c.httpsUri, c.rsyncUri], ...(talUri ? { tal_uri: talUri } : {}), ...(signer === undefined ? {} : { signer }) }
  }
}
