/**
 * How the console logs in, as plain functions (session.ts does the calls): GET /auth/login's text answer read as the
 * kind of login form (Krill's: `/login`, `/login?withId=true`, or the OpenID Connect provider's absolute URL), and the
 * HTTP Basic credentials of a config-file user (RFC 7617 with UTF-8, as svcd reads them).
 */

/** How svcd wants its users to log in. */
export type LoginMethod = { kind: 'token' } | { kind: 'password' } | { kind: 'redirect'; url: string }

/** GET /auth/login's answer as a login method; anything that is not an absolute http(s) URL is one of svcd's pages. */
export function loginMethodOf(answer: string): LoginMethod {
  const a = answer.trim()
  if (/^https?:\/\/[^\s]+$/i.test(a)) return { kind: 'redirect', url: a }
  const query = a.startsWith('/') && a.includes('?') ? new URLSearchParams(a.slice(a.indexOf('?') + 1)) : new URLSearchParams()
  return query.get('withId') === 'true' ? { kind: 'password' } : { kind: 'token' }
}

/** `Basic base64(user:password)`, the UTF-8 bytes of both. */
export function basicAuthorization(user: string, password: string): string {
  const bytes = new TextEncoder().encode(`${user}:${password}`)
  let bin = ''
  for (const b of bytes) bin += String.fromCharCode(b)
  return `Basic ${btoa(bin)}`
}
