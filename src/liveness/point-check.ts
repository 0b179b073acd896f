/**
 * One publication point as relying parties see it over one transport (issue 26 §1, design.md §11): the manifest
 * (present, decodes, signed under the CA, current, its number's progress), exactly one CRL (present, signed by the
 * CA, current, as listed), every listed file present with its hash (RFC 9286 §6.4–6.5), every file listed, each
 * object by point-objects.ts, and the files against what the CA believes it published. Pure: `now` is passed in.
 * Called by the liveness service (app/liveness/) with what a RepositoryFetcher fetched.
 */
import * as oids from '../asn1/oids.js'
import { sha256Hex } from '../crypto/digest.js'
import { type Cert, decodeCert } from '../objects/cert.js'
import { type Crl, decodeCrl, inspectCrl } from '../objects/crl.js'
import { decodeManifest, inspectManifest, type Manifest } from '../objects/manifest.js'
import { checkCrlIssuedBy, checkManifestFiles } from '../objects/offline-checks.js'
import { LibraryError } from '../util/errors.js'
import type { FetchedRepository, Finding, PointSeen, Transport } from './model.js'
import { checkObject, decodeFinding, problemFindings, signedObjectFindings } from './point-objects.js'
import { fileNameProblem, manifestNumberProblem, RULE_CRL_NAME, RULE_ONE_CRL } from './rpki-client-rules.js'

/** The publication point to check, and what is known of it besides what was fetched. */
export interface PointToCheck {
  /** The rsync URI of the directory, ending in '/'. */
  dir: string
  /** Default: the certificate's SIA rpkiManifest, else the only `.mft` in `dir`. */
  manifestUri?: string
  /** Default: the one CRL on the manifest. */
  crlUri?: string
  /** The CA certificate of the point (DER): the manifest and CRL are checked against it when given. */
  caCert?: Uint8Array
  /** What the CA believes it published: rsync URI → SHA-256 hex; absent for a child that publishes elsewhere. */
  files?: ReadonlyMap<string, string>
  /** The manifest number (decimal) and manifest hash (SHA-256 hex) seen at the previous check, if any. */
  previousManifestNumber?: string
  previousManifestHash?: string
}

export interface PointCheckOptions {
  /** A manifest or CRL with less than this left before its nextUpdate is `expiring`. */
  expiryMarginMs: number
  /**
   * The findings of objects checked before, by transport, URI, SHA-256 and the CA certificate's SHA-256: an object's
   * own checks (decoding, profile, signature, SIA, name) do not depend on the time, so a later check of the same bytes
   * under the same CA takes the findings kept rather than verifying again. The caller bounds it (one check's worth).
   */
  objects?: ObjectMemo
}

export interface ObjectMemo {
  get(key: string): Finding[] | undefined
  set(key: string, findings: Finding[]): void
}

export interface PointCheck {
  seen: PointSeen
  findings: Finding[]
}

/** Check the point `p` in `fetched` at `now` (ms). Never throws for bad objects: everything wrong is a finding. */
export function checkPoint(fetched: FetchedRepository, p: PointToCheck, now: number, opts: PointCheckOptions): PointCheck {
  const steps = checkPointSteps(fetched, p, now, opts)
  for (;;) {
    const r = steps.next()
    if (r.done) return r.value
  }
}

/**
 * checkPoint one object at a time: the generator yields after each object it checked, so that a caller on an event
 * loop can let other work run in between (a point with 10,000 child certificates or 100,000 ROAs takes seconds).
 */
export function* checkPointSteps(fetched: FetchedRepository, p: PointToCheck, now: number, opts: PointCheckOptions): Generator<void, PointCheck> {
  const transport = fetched.transport
  if (fetched.error !== undefined) {
    return { seen: { transport, at: fetched.at, reachable: false, valid: false }, findings: [{ kind: 'unreachable', transport, detail: fetched.error }] }
  }
  const c = new PointChecker(fetched, p, now, opts)
  const seen = yield* c.run()
  return { seen, findings: dedupe(c.findings) }
}

/** Each fetched repository's files by directory, built once per fetch (many points share one repository). */
const byDirectory = new WeakMap<ReadonlyMap<string, Uint8Array>, Map<string, Map<string, Uint8Array>>>()

/** The files directly in `dir` (not in its subdirectories, which are other points). */
export function filesInDir(files: ReadonlyMap<string, Uint8Array>, dir: string): Map<string, Uint8Array> {
  let index = byDirectory.get(files)
  if (!index) {
    index = new Map()
    for (const [uri, bytes] of files) {
      const d = uri.slice(0, uri.lastIndexOf('/') + 1)
      let m = index.get(d)
      if (!m) index.set(d, (m = new Map()))
      m.set(uri, bytes)
    }
    byDirectory.set(files, index)
  }
  return new Map(index.get(dir) ?? [])
}

class PointChecker {
  readonly findings: Finding[] = []
  private readonly transport: Transport
  private readonly inDir: Map<string, Uint8Array>
  private readonly ca: Cert | undefined
  private caHash: string | undefined

  constructor(private readonly fetched: FetchedRepository, private readonly p: PointToCheck, private readonly now: number, private readonly opts: PointCheckOptions) {
    this.transport = fetched.transport
    this.inDir = filesInDir(fetched.files, p.dir)
    this.ca = this.decodeCa()
  }

  *run(): Generator<void, PointSeen> {
    const seen: PointSeen = { transport: this.transport, at: this.fetched.at, reachable: true, valid: false }
    this.compareWithBelief()
    const mftUri = this.manifestUri()
    const mftBytes = mftUri === undefined ? undefined : this.inDir.get(mftUri) ?? this.fetched.files.get(mftUri)
    let crlOk = false
    let mftOk = false
    if (mftUri === undefined || mftBytes === undefined) {
      this.add({ kind: 'missing', uri: mftUri, rule: 'RFC 9286 §6.2', detail: `no manifest in ${this.p.dir}` })
    } else {
      const m = this.decode(mftUri, () => decodeManifest(mftBytes))
      if (m) {
        Object.assign(seen, { manifestNumber: m.manifestNumber.toString(), manifestThisUpdate: m.thisUpdate.getTime(), manifestNextUpdate: m.nextUpdate.getTime(), manifestHash: sha256Hex(mftBytes) })
        mftOk = this.checkManifest(mftUri, m, seen.manifestHash!)
        const crl = this.checkCrl(mftUri, m)
        crlOk = crl.ok
        if (crl.nextUpdate !== undefined) seen.crlNextUpdate = crl.nextUpdate
        mftOk = this.checkListedFiles(mftUri, m) && mftOk
      }
    }
    for (const [uri, bytes] of this.inDir) {
      if (uri === mftUri || uri.endsWith('.crl')) continue
      this.findings.push(...this.object(uri, bytes))
      yield
    }
    seen.valid = mftOk && crlOk
    return seen
  }

  /** checkObject, or the findings kept for the same bytes under the same CA (opts.objects). */
  private object(uri: string, bytes: Uint8Array): Finding[] {
    return this.memoized(uri, sha256Hex(bytes), () => checkObject(uri, bytes, this.transport, this.ca))
  }

  /**
   * The time-independent findings of the object `uri` with SHA-256 `hash` (decoding, profile, signature, issuer): kept
   * from the last check for the same bytes under the same CA (opts.objects), else `check`. A repository where only a
   * few CAs changed is then not verified again whole at every check: its manifests and CRLs neither (issue 28).
   */
  private memoized(uri: string, hash: string, check: () => Finding[]): Finding[] {
    const memo = this.opts.objects
    if (!memo) return check()
    this.caHash ??= this.p.caCert ? sha256Hex(this.p.caCert) : ''
    const key = `${this.transport} ${uri} ${hash} ${this.caHash}`
    const kept = memo.get(key)
    if (kept) return kept
    const found = check()
    memo.set(key, found)
    return found
  }

  private decodeCa(): Cert | undefined {
    if (this.p.caCert === undefined) return undefined
    try {
      return decodeCert(this.p.caCert)
    } catch (e) {
      if (!(e instanceof LibraryError)) throw e
      this.add({ kind: 'invalid', rule: e.rule, detail: `the CA certificate does not decode: ${e.message}` })
      return undefined
    }
  }

  private manifestUri(): string | undefined {
    if (this.p.manifestUri !== undefined) return this.p.manifestUri
    const sia = this.ca?.extensions.sia?.find((a) => a.method === oids.idAdRpkiManifest)?.uri
    if (sia !== undefined) return sia
    const mfts = [...this.inDir.keys()].filter((u) => u.endsWith('.mft'))
    return mfts.length === 1 ? mfts[0] : undefined
  }

  private decode<T>(uri: string, fn: () => T): T | undefined {
    try {
      return fn()
    } catch (e) {
      if (!(e instanceof LibraryError)) throw e
      this.findings.push(decodeFinding(uri, this.transport, e))
      return undefined
    }
  }

  /** Profile (the CRL count and names are the rpki-client rules below), signature, issuer, window, number. */
  private checkManifest(uri: string, m: Manifest, hash: string): boolean {
    const profile = () => inspectManifest(m).filter((x) => !(x.rule === 'RFC 9286 §5.1' && /CRLs/.test(x.message)) && x.rule !== 'RFC 9286 §4.2.2')
    const before = this.findings.length
    this.findings.push(...this.memoized(uri, hash, () => {
      const found = signedObjectFindings(uri, m.signedObject, profile(), this.transport, this.ca)
      for (const f of m.files) {
        const bad = fileNameProblem(f.file)
        if (bad) found.push({ kind: 'invalid', transport: this.transport, uri, rule: bad.rule, detail: `the manifest lists ${bad.detail}` })
      }
      return found
    }))
    const ok = this.findings.length === before
    const current = this.window(uri, 'manifest', m.thisUpdate.getTime(), m.nextUpdate.getTime(), 'RFC 9286 §6.3')
    if (this.p.previousManifestNumber !== undefined) {
      const n = manifestNumberProblem(m.manifestNumber, hash, this.p.previousManifestNumber, this.p.previousManifestHash)
      if (n) this.add({ kind: 'invalid', uri, ...n })
    }
    return ok && current
  }

  /** stale outside thisUpdate ≤ now < nextUpdate; expiring within the margin. Returns whether it is current. */
  private window(uri: string, what: string, thisUpdate: number, nextUpdate: number | undefined, rule: string): boolean {
    if (this.now < thisUpdate) {
      this.add({ kind: 'stale', uri, rule, detail: `the ${what} is not valid before ${new Date(thisUpdate).toISOString()}` })
      return false
    }
    if (nextUpdate === undefined) return true
    if (this.now >= nextUpdate) {
      this.add({ kind: 'stale', uri, rule, detail: `the ${what} is stale since ${new Date(nextUpdate).toISOString()}` })
      return false
    }
    const left = nextUpdate - this.now
    if (left <= this.opts.expiryMarginMs) this.add({ kind: 'expiring', uri, detail: `the ${what}'s nextUpdate ${new Date(nextUpdate).toISOString()} is ${(left / 3_600_000).toFixed(1)} h away` })
    return true
  }

  /** Exactly one CRL on the manifest (rpki-client), the one the EE names, present, valid, signed by the CA, current. */
  private checkCrl(mftUri: string, m: Manifest): { ok: boolean; nextUpdate?: number } {
    const crls = m.files.filter((f) => f.file.toLowerCase().endsWith('.crl'))
    if (crls.length !== 1) {
      this.add({ kind: 'invalid', uri: mftUri, rule: RULE_ONE_CRL, detail: `the manifest lists ${crls.length} CRLs` })
    }
    const crldp = m.ee.extensions.crldp?.uris.find((u) => u.startsWith('rsync://'))
    if (crldp !== undefined && crls.length >= 1 && !crls.some((f) => crldp.endsWith(`/${f.file}`))) {
      this.add({ kind: 'invalid', uri: mftUri, rule: RULE_CRL_NAME, detail: `the manifest's EE names the CRL ${crldp}, which the manifest does not list` })
    }
    const crlUri = this.p.crlUri ?? (crls.length === 1 ? this.p.dir + crls[0].file : crldp)
    if (crlUri === undefined) return { ok: false }
    const bytes = this.fetched.files.get(crlUri)
    if (bytes === undefined) {
      this.add({ kind: 'missing', uri: crlUri, rule: 'RFC 9286 §6.4', detail: 'the CRL is not there' })
      return { ok: false }
    }
    const crl = this.decode(crlUri, () => decodeCrl(bytes))
    if (!crl) return { ok: false }
    return { ok: this.checkCrlObject(crlUri, crl, sha256Hex(bytes)) && crls.length === 1, nextUpdate: crl.nextUpdate?.getTime() }
  }

  private checkCrlObject(uri: string, crl: Crl, hash: string): boolean {
    const before = this.findings.length
    this.findings.push(...this.memoized(uri, hash, () => [
      ...problemFindings(uri, this.transport, inspectCrl(crl)),
      ...(this.ca ? problemFindings(uri, this.transport, checkCrlIssuedBy(crl, this.ca)) : []),
    ]))
    const ok = this.findings.length === before
    return this.window(uri, 'CRL', crl.thisUpdate.getTime(), crl.nextUpdate?.getTime(), 'RFC 6487 §5') && ok
  }

  /**
   * RFC 9286 §6.4–6.5: every listed file is there with the listed hash; otherwise the manifest cannot be used
   * (RFC 9286 §6.6: the fetch has failed), which is reported on the manifest too, as relying parties report it.
   * Every file in the directory is listed (else `extra`).
   */
  private checkListedFiles(mftUri: string, m: Manifest): boolean {
    const problems = checkManifestFiles(m, (f) => this.inDir.get(this.p.dir + f)) ?? m.files.map((f) => ({ rule: 'RFC 9286 §6.4', message: `${f.file} is listed but missing`, severity: 'error' as const }))
    for (const x of problems) {
      const file = /^(\S+) is listed but missing$/.exec(x.message)?.[1] ?? /bad message digest for (\S+)$/.exec(x.message)?.[1]
      const uri = file === undefined ? mftUri : this.p.dir + file
      this.add({ kind: x.rule === 'RFC 9286 §6.4' ? 'missing' : 'invalid', uri, rule: x.rule, detail: x.message })
    }
    if (problems.length) this.add({ kind: 'invalid', uri: mftUri, rule: 'RFC 9286 §6.6', detail: `${problems.length} of the ${m.files.length} listed files are missing or differ: relying parties cannot use this manifest` })
    const listed = new Set(m.files.map((f) => this.p.dir + f.file))
    for (const uri of this.inDir.keys()) if (uri !== mftUri && !listed.has(uri)) this.add({ kind: 'extra', uri, detail: 'in the directory but not on the manifest' })
    return problems.length === 0
  }

  /** missing (believed, not fetched), changed (other bytes), extra (fetched in the directory, not believed). */
  private compareWithBelief(): void {
    const believed = this.p.files
    if (believed === undefined) return
    for (const [uri, hash] of believed) {
      const bytes = this.fetched.files.get(uri)
      if (bytes === undefined) this.add({ kind: 'missing', uri, detail: 'published by the CA, not served' })
      else if (sha256Hex(bytes) !== hash.toLowerCase()) this.add({ kind: 'changed', uri, detail: `served with SHA-256 ${sha256Hex(bytes)}, published as ${hash.toLowerCase()}` })
    }
    for (const uri of this.inDir.keys()) if (!believed.has(uri)) this.add({ kind: 'extra', uri, detail: 'served, but not published by the CA' })
  }

  private add(f: Omit<Finding, 'transport'>): void {
    this.findings.push({ ...f, transport: this.transport })
  }
}

/** One finding per kind and URI for missing/extra/changed (the belief and the manifest can both see one), per rule otherwise. */
function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>()
  return findings.filter((f) => {
    const key = ['missing', 'extra', 'changed'].includes(f.kind) ? `${f.kind}|${f.uri}` : `${f.kind}|${f.uri}|${f.rule}|${f.detail}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
