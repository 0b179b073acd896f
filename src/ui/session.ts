/**
 * Who is logged in, for this browser tab only (sessionStorage: gone when the tab closes, never written to disk as a
 * cookie or in localStorage). Logging in asks svcd's auth provider (POST /auth/login, http/auth-provider.ts) to turn
 * credentials into a session `{token, id, attributes}`; every API call then carries that token. Today the one
 * provider takes the admin token as the credential and answers it back; a provider of user accounts (a name and a
 * password, or OpenID Connect) answers a session token of its own, and only the login form changes.
 */
import type { components } from 'svc-api-schema'

export interface Session {
  /** The bearer token every API call carries. */
  token: string
  /** Who the server says this is (`admin-token` today). */
  id: string
  role: string
}

/** What a login form collects: the admin token today; user accounts add their kind here. */
export type Credentials = { kind: 'token'; token: string }

const KEY = 'svc.session'
type Listener = (s: Session | undefined, reason?: string) => void
const listeners = new Set<Listener>()

export function currentSession(): Session | undefined {
  try {
    const raw = sessionStorage.getItem(KEY)
    const s = raw ? (JSON.parse(raw) as Partial<Session>) : undefined
    return s && typeof s.token === 'string' && typeof s.id === 'string' ? { token: s.token, id: s.id, role: String(s.role ?? '') } : undefined
  } catch {
    return undefined
  }
}

export function onSessionChange(fn: Listener): () => void {
  listeners.add(fn)
  return () => listeners.delete(fn)
}

/** Log in: the provider's answer becomes the session; throws the server's error (api-invalid-credentials) when refused. */
export async function login(c: Credentials): Promise<Session> {
  const res = await fetch('/auth/login', { method: 'POST', headers: { Authorization: `Bearer ${c.token}` } })
  const body = (await res.json().catch(() => ({}))) as components['schemas']['LoggedInUser'] & components['schemas']['ErrorBody']
  if (!res.ok) throw Object.assign(new Error(body.msg || `HTTP ${res.status}`), { label: body.label ?? `http-${res.status}` })
  const s: Session = { token: body.token, id: body.id, role: String(body.attributes?.role ?? '') }
  sessionStorage.setItem(KEY, JSON.stringify(s))
  for (const l of listeners) l(s)
  return s
}

/** Log out (the server is told, so a provider with server-side sessions can end them) and forget the token. */
export async function logout(): Promise<void> {
  const s = currentSession()
  if (s) await fetch('/auth/logout', { method: 'POST', headers: { Authorization: `Bearer ${s.token}` } }).catch(() => undefined)
  endSession()
}

/** Forget the session (logout, or any 401): the login form comes back, with `reason` shown. */
export function endSession(reason?: string): void {
  sessionStorage.removeItem(KEY)
  for (const l of listeners) l(undefined, reason)
}
