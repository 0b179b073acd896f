/**
 * The configured signers as the API shows them (design.md §10, issue 25): GET /api/v1/signers (`svcc signers`) lists
 * each with its handle, token, keys held and whether it can sign now, and key rolls check here that the signer they
 * name exists and can make a key before anything changes. Reads the SignerSet (signers/signer-set.ts) through the
 * narrow view below and the key directory's counts; never the PIN.
 */
import type { SignerJson, SignerListJson } from '../../api/signers.js'
import type { ErrorBody } from '../../api/status.js'
import { AppError } from '../../errors.js'
import type { SignerProblem, SignerStats } from '../../signers/signer-set.js'
import type { SignerRegistryStore } from '../../store/interfaces.js'

/** What the service reads of the SignerSet. */
export interface SignerSetView {
  readonly members: readonly { name: string; type: 'OpenSSL' | 'PKCS#11'; handle(): string | undefined; info(): Record<string, string>; problem(): SignerProblem | undefined }[]
  readonly defaultSigner: string
  stats(): SignerStats[]
  problems(): SignerProblem[]
}

export interface SignerServiceDeps {
  set: SignerSetView
  /** `one_off_signer` (config-signers.ts effectiveSigners). */
  oneOffSigner: string
  registry: Pick<SignerRegistryStore, 'signers' | 'countKeys'>
}

export class SignerService {
  constructor(private readonly d: SignerServiceDeps) {}

  /** GET /api/v1/signers. */
  list(): SignerListJson {
    const records = this.d.registry.signers()
    const counts = this.d.registry.countKeys()
    const stats = new Map(this.d.set.stats().map((s) => [s.name, s]))
    const signers = this.d.set.members.map((m): SignerJson => {
      const handle = m.handle() ?? records.find((r) => r.name === m.name)?.handle
      // A token not opened since start: what it said of itself when it last was.
      const info = { ...(handle === undefined ? {} : records.find((r) => r.handle === handle)?.info), ...m.info() }
      const p = m.problem()
      const st = stats.get(m.name)
      const pick = (k: string) => (typeof info[k] === 'string' && info[k] !== '' ? { [k]: info[k] } : {})
      return {
        name: m.name, type: m.type, handle: handle ?? null, default: m.name === this.d.set.defaultSigner, one_off: m.name === this.d.oneOffSigner,
        ...pick('token_label'), ...pick('serial'), ...pick('lib_path'),
        keys: handle === undefined ? 0 : (counts[handle] ?? 0),
        available: p === undefined,
        problem: p ? { label: p.label, message: new AppError(p.label, p.args).message, since: p.since } : null,
        operations: { sign: st?.sign ?? 0, sign_errors: st?.signErrors ?? 0, keygen: st?.keygen ?? 0, keygen_errors: st?.keygenErrors ?? 0 },
      }
    })
    return { signers }
  }

  /** The signers that cannot sign now, as /ready and the bulk issues show them (label, message, since). */
  problems(): ErrorBody[] {
    return this.d.set.problems().map((p) => {
      const e = new AppError(p.label, p.args)
      return { label: e.label, msg: e.message, args: { ...e.args, since: p.since } }
    })
  }

  /**
   * A key roll into signer `name` may start: 400 `signer-unknown` for a name not configured, 503 with the signer's
   * problem when it cannot make keys now (a slow signer still can).
   */
  requireReady(name: string): void {
    const m = this.d.set.members.find((x) => x.name === name)
    if (!m) throw new AppError('signer-unknown', { signer: name, known: this.d.set.members.map((x) => x.name).join(', ') })
    const p = m.problem()
    if (p && p.label !== 'sys-signer-slow') throw new AppError(p.label, p.args)
  }
}
