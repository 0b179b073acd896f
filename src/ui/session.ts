/**
 * Who is logged in, for this browser tab only (sessionStorage: gone when the tab closes, never written to disk as a
 * cookie or in localStorage). svcd says how to log in (GET /auth/login, Krill's answer: `/login` for the admin token,
 * `/login?withId=true` for the users of its config file, or the OpenID Connect provider's authorization URL); a login
 * (POST /auth/login: the admin token as a bearer token, a user's password by HTTP Basic, or the one-time code that
 * svcd's OpenID Connect callback left in an HttpOnly cookie) answers a session `{token, id, attributes}`; the console
 * then asks who that is (GET /api/v1/whoami: provider, role, permissions, CAs) and keeps it with the session. Every
 * API call carries the session's token; logging out ends it at svcd.
 */
import type { components } from 'svc-api-schema'
import { basicAuthorization, loginMethodOf, type LoginMethod } from './credentials.js'

type Schemas = components['schemas']
export type WhoAmI = Schemas['WhoAmIJson']

export interface Session {
  /** The bearer token every API call carries. */
  token: string
  /** Who the server says this is (`admin-token`, a user id). */
  id: string
  role: string
  /** GET /api/v1/whoami, asked right after the login (undefined only until it answered). */
  who?: WhoAmI
}

/** What a login form collects: the admin token, a config-file user's id and password, or the OpenID Connect code. */
export type Credentials = { kind: 'token'; token: string } | { kind: 'password'; user: string; password: string } | { kind: 'exchange' }

const KEY = 'svc.session'
type Listener = (s: Session | undefined, reason?: string) => void
const listeners = new Set<Listener>()

export function currentSession(): Session | undefined {
  try {
    const raw = sessionStorage.getItem(KEY)
    const s = raw ? (JSON.parse(raw) as Partial<Session>) : undefined
    return s && typeof s.token === 'string' && typeof s.id === 'string' ? { token: s.token, id: s.id, role: String(s.role ?? ''), ...(isWho(s.who) ? { who: s.who } : {}) } : undefined
  } catch {
    return undefined
  }
}

function isWho(w: unknown): w is WhoAmI {
  const o = w as Partial<WhoAmI> | undefined
  return typeof o === 'object' && o !== null && typeof o.id === 'string' && typeof o.role === 'string' && Array.isArray(o.permissions)
}

export function onSessionChange(fn: Listener): () => void {
  listeners.add(fn)
  return () => listeners.delete(fn)
}

function store(s: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(s))
  for (const l of listeners) l(s)
}

/** GET /auth/login: Krill's text answer read as the kind of login form to show. */
export async function loginMethod(): Promise<LoginMethod> {
  const res = await fetch('/auth/login', { headers: { Accept: 'text/plain' } })
  if (!res.ok) throw new Error(`svcd did not say how to log in (HTTP ${res.status})`)
  return loginMethodOf(await res.text())
}

/** An error of the login: the server's label and message. */
export class LoginError extends Error {
  constructor(
    readonly label: string,
    msg: string,
  ) {
    super(msg)
  }
}

/** Log in: the provider's answer becomes the session, with who it is; throws a LoginError (api-invalid-credentials…) when refused. */
export async function login(c: Credentials): Promise<Session> {
  const init: RequestInit =
    c.kind === 'token'
      ? { method: 'POST', headers: { Authorization: `Bearer ${c.token}` } }
      : c.kind === 'password'
        ? { method: 'POST', headers: { Authorization: basicAuthorization(c.user, c.password) } }
        : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ exchange: true }), credentials: 'same-origin' }
  const res = await fetch('/auth/login', init)
  const body = (await res.json().catch(() => ({}))) as Partial<Schemas['LoggedInUser'] & Schemas['ErrorBody']>
  if (!res.ok || typeof body.token !== 'string') throw new LoginError(body.label ?? `http-${res.status}`, body.msg || `HTTP ${res.status}`)
  const who = await whoAmI(body.token)
  const s: Session = { token: body.token, id: body.id ?? who?.id ?? '', role: String(body.attributes?.role ?? who?.role ?? ''), ...(who ? { who } : {}) }
  store(s)
  return s
}

/** GET /api/v1/whoami with this token (undefined when svcd does not answer it: nothing is hidden then, svcd still decides). */
async function whoAmI(token: string): Promise<WhoAmI | undefined> {
  const res = await fetch('/api/v1/whoami', { headers: { Authorization: `Bearer ${token}` } }).catch(() => undefined)
  if (!res?.ok) return undefined
  const w = (await res.json().catch(() => undefined)) as unknown
  return isWho(w) ? w : undefined
}

/** Ask who the session is when it does not know yet (a session kept from before); keeps the answer in the session. */
export async function refreshWho(): Promise<void> {
  const s = currentSession()
  if (!s || s.who) return
  const who = await whoAmI(s.token)
  if (who && currentSession()?.token === s.token) store({ ...s, who })
}

/**
 * Log out: svcd ends the session (the token is refused from then on) and answers where to go next. That answer is
 * svcd's own, so an absolute http(s) URL in it (the OpenID Connect provider's end-session page) is followed; anything
 * else brings the console's login back. Nothing from the page's own URL is ever followed.
 */
export async function logout(): Promise<void> {
  const s = currentSession()
  let next = '/'
  if (s) {
    const res = await fetch('/auth/logout', { method: 'POST', headers: { Authorization: `Bearer ${s.token}` } }).catch(() => undefined)
    if (res?.ok) next = (await res.text().catch(() => '/')).trim()
  }
  endSession()
  if (/^https?:\/\/[^\s]+$/i.test(next)) location.assign(next)
}

/** Forget the session (logout, or any 401): the login form comes back, with `reason` shown. */
export function endSession(reason?: string): void {
  sessionStorage.removeItem(KEY)
  for (const l of listeners) l(undefined, reason)
}
