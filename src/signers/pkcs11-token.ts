/**
 * A PKCS#11 token as svcd uses it (design.md §10): the vendor library loaded through pkcs11js (a maintained binding),
 * the slot found by number or token label, one session for signing, sessions for key generation, the user login,
 * and the signer's identity (a data object holding the signer handle, so a signer can be renamed or its library
 * moved). Failures are classified into svcd's labels (sys-signer-unavailable, sys-signer-login); a failed token is
 * closed and opened again by pkcs11-signer.ts with back-off. The user PIN is kept in a private field and never
 * appears in a message: pkcs11js errors carry only the function and the CKR_* name, and only those are reported.
 */
import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import type * as P from 'pkcs11js'

type Lib = P.PKCS11
type Handle = Buffer

/** What a [[signers]] block of type "PKCS#11" says about reaching the token (config-signers.ts). */
export interface TokenConfig {
  name: string
  libPath: string
  /** The slot id (a number) or the token label (a string); the first slot with a token when absent. */
  slot?: number | string
  userPin?: string
  login: boolean
}

/** A PKCS#11 failure as svcd reports it: the label and a reason made of the function and the CKR_* name only. */
export class TokenError extends Error {
  readonly label: 'sys-signer-unavailable' | 'sys-signer-login'
  readonly code: string
  constructor(label: TokenError['label'], code: string, reason: string) {
    super(reason)
    this.name = 'TokenError'
    this.label = label
    this.code = code
  }
}

const LOGIN_CODES = new Set(['CKR_PIN_INCORRECT', 'CKR_PIN_LOCKED', 'CKR_PIN_EXPIRED', 'CKR_PIN_INVALID', 'CKR_PIN_LEN_RANGE', 'CKR_USER_PIN_NOT_INITIALIZED'])

/** The CKR_* name of a pkcs11js error (its message starts with it), or the error's class for anything else. */
export function ckr(e: unknown): string {
  const m = /^(CKR_[A-Z_]+)/.exec(e instanceof Error ? e.message : '')
  return m ? m[1] : e instanceof Error ? (e as NodeJS.ErrnoException).code ?? e.name : 'unknown error'
}

/** A TokenError for `e` raised by `fn`: a login failure or the token being unusable. Never includes the PIN. */
export function tokenError(fn: string, e: unknown): TokenError {
  if (e instanceof TokenError) return e
  const code = ckr(e)
  return new TokenError(LOGIN_CODES.has(code) ? 'sys-signer-login' : 'sys-signer-unavailable', code, `${fn}: ${code}`)
}

/** One loaded library per path in this process: C_Initialize once, shared by the signers that use it. */
interface Module {
  lib: Lib
  users: number
  initialized: boolean
}
const modules = new Map<string, Module>()
const require = createRequire(import.meta.url)
let binding: typeof P | undefined

/** pkcs11js, loaded on first use: svcd without a PKCS#11 signer never loads the native module. */
export function pkcs11(): typeof P {
  binding ??= require('pkcs11js') as typeof P
  return binding
}

const MARKER_LABEL = 'svcd-signer'

/** An open token: the library, the slot, the signing session, and the signer's handle read from (or put in) it. */
export class Token {
  readonly handle: string
  readonly slot: Handle
  readonly tokenLabel: string
  readonly serial: string
  readonly lib: Lib
  readonly session: Handle
  readonly #mod: Module
  readonly #libPath: string
  readonly #genSessions: Handle[] = []
  #closed = false

  private constructor(mod: Module, libPath: string, slot: Handle, session: Handle, handle: string, info: P.TokenInfo) {
    this.#mod = mod
    this.#libPath = libPath
    this.lib = mod.lib
    this.slot = slot
    this.session = session
    this.handle = handle
    this.tokenLabel = info.label.trim()
    this.serial = info.serialNumber.trim()
  }

  /** Load the library, find the slot, open a session, log in, and read or create the signer handle. */
  static open(c: TokenConfig): Token {
    const P = pkcs11()
    let mod = modules.get(c.libPath)
    if (!mod) {
      const lib = new P.PKCS11()
      try {
        lib.load(c.libPath)
      } catch (e) {
        throw new TokenError('sys-signer-unavailable', 'load', `the library ${c.libPath} cannot be loaded (${(e as NodeJS.ErrnoException).code ?? 'not a PKCS#11 library'})`)
      }
      mod = { lib, users: 0, initialized: false }
      modules.set(c.libPath, mod)
    }
    const lib = mod.lib
    if (!mod.initialized) {
      try {
        // Key generation runs on libuv threads: the library must lock for itself.
        lib.C_Initialize({ flags: P.CKF_OS_LOCKING_OK })
      } catch (e) {
        if (ckr(e) !== 'CKR_CRYPTOKI_ALREADY_INITIALIZED') throw tokenError('C_Initialize', e)
      }
      mod.initialized = true
    }
    let session: Handle | undefined
    try {
      const slot = findSlot(lib, c.slot)
      const info = lib.C_GetTokenInfo(slot)
      session = lib.C_OpenSession(slot, P.CKF_RW_SESSION | P.CKF_SERIAL_SESSION)
      if (c.login) {
        try {
          lib.C_Login(session, P.CKU_USER, c.userPin ?? '')
        } catch (e) {
          if (ckr(e) !== 'CKR_USER_ALREADY_LOGGED_IN') throw tokenError('C_Login', e)
        }
      }
      const handle = readOrCreateHandle(lib, session)
      mod.users++
      return new Token(mod, c.libPath, slot, session, handle, info)
    } catch (e) {
      if (session) {
        try {
          lib.C_CloseSession(session)
        } catch {
          // the token is gone: nothing to close
        }
      }
      throw tokenError('open', e)
    }
  }

  /** A session for one key generation at a time (async calls must not share the signing session). */
  takeGenSession(): Handle {
    return this.#genSessions.pop() ?? this.lib.C_OpenSession(this.slot, pkcs11().CKF_RW_SESSION | pkcs11().CKF_SERIAL_SESSION)
  }

  giveGenSession(s: Handle): void {
    if (this.#closed) return
    this.#genSessions.push(s)
  }

  /** The token still answers: the signer's marker object is found in the signing session. */
  alive(): boolean {
    try {
      return findObjects(this.lib, this.session, markerTemplate()).length > 0
    } catch {
      return false
    }
  }

  /**
   * Close the sessions and, when no other signer uses the library, finalize it: the next open() initializes it again
   * and sees the token as it is now (SoftHSM2 reads its token directory at C_Initialize).
   */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    for (const s of [this.session, ...this.#genSessions.splice(0)]) {
      try {
        this.lib.C_CloseSession(s)
      } catch {
        // gone already
      }
    }
    this.#mod.users--
    if (this.#mod.users <= 0 && this.#mod.initialized) {
      this.#mod.initialized = false
      try {
        this.lib.C_Finalize()
      } catch {
        // not initialized any more
      }
    }
  }

  toString(): string {
    return `Token(${this.#libPath}, ${this.tokenLabel})`
  }
}

/** The slot with a token whose id is `slot` (a number) or whose label is `slot` (a string); else the first one. */
function findSlot(lib: Lib, slot: number | string | undefined): Handle {
  const slots = lib.C_GetSlotList(true)
  for (const s of slots) {
    if (slot === undefined) return s
    if (typeof slot === 'number' ? slotId(s) === BigInt(slot) : lib.C_GetTokenInfo(s).label.trim() === slot) return s
  }
  throw new TokenError('sys-signer-unavailable', 'CKR_TOKEN_NOT_PRESENT', slot === undefined ? 'no slot holds a token' : `no token in slot ${typeof slot === 'number' ? `0x${slot.toString(16)}` : `labelled '${slot}'`}`)
}

/** A slot handle as the number PKCS#11 tools print (CK_ULONG, little-endian in the handle buffer). */
export function slotId(h: Handle): bigint {
  return h.length >= 8 ? h.readBigUInt64LE(0) : BigInt(h.readUInt32LE(0))
}

function markerTemplate(): P.Template {
  const P = pkcs11()
  return [{ type: P.CKA_CLASS, value: P.CKO_DATA }, { type: P.CKA_LABEL, value: MARKER_LABEL }]
}

/** The signer handle stored in the token (a token data object); made on first use. */
function readOrCreateHandle(lib: Lib, session: Handle): string {
  const P = pkcs11()
  const found = findObjects(lib, session, markerTemplate())
  if (found.length > 0) {
    const [attr] = lib.C_GetAttributeValue(session, found[0], [{ type: P.CKA_VALUE }])
    const v = (attr.value as Buffer | undefined)?.toString('utf8') ?? ''
    if (/^[0-9a-f-]{36}$/.test(v)) return v
  }
  const handle = randomUUID()
  lib.C_CreateObject(session, [
    ...markerTemplate(), { type: P.CKA_TOKEN, value: true }, { type: P.CKA_PRIVATE, value: false },
    { type: P.CKA_APPLICATION, value: 'svcd' }, { type: P.CKA_VALUE, value: Buffer.from(handle, 'utf8') },
  ])
  return handle
}

/** Every object matching `template` (at most 16: svcd looks keys up by their unique CKA_ID). */
export function findObjects(lib: Lib, session: Handle, template: P.Template): Handle[] {
  lib.C_FindObjectsInit(session, template)
  try {
    return lib.C_FindObjects(session, 16)
  } finally {
    lib.C_FindObjectsFinal(session)
  }
}
