/**
 * The login, with whichever provider svcd is configured for (session.ts `loginMethod`): the admin token form, a user
 * and password form (config-file users), or a button to the OpenID Connect provider. /ui/login/callback is where svcd
 * sends the browser back after the provider: it trades the one-time HttpOnly cookie for a session (POST /auth/login
 * `{"exchange": true}`). /ui/login?error=<label> shows why a login through the provider failed (a label only: no
 * text from the URL is shown, and no URL from it is followed).
 */
import type { JSX } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { onSubmit } from '../components.js'
import { useAction, useLoad } from '../load.js'
import { navigate } from '../router.js'
import { login, loginMethod, type LoginError } from '../session.js'

/** The error label of /ui/login?error=<label>, when it looks like one. */
function errorLabel(): string | undefined {
  if (location.pathname.replace(/\/$/, '') !== '/ui/login') return undefined
  const label = new URLSearchParams(location.search).get('error')
  return label && /^[a-z0-9-]{1,64}$/.test(label) ? label : undefined
}

export function Login(props: { reason?: string }): JSX.Element {
  const callback = location.pathname.replace(/\/$/, '') === '/ui/login/callback'
  return <main id="main" class="login">{callback ? <Callback /> : <LoginForm reason={props.reason} />}</main>
}

function LoginForm(props: { reason?: string }): JSX.Element {
  const method = useLoad(loginMethod, [])
  const act = useAction()
  const failed = errorLabel()
  const e = act.error as LoginError | undefined
  const error = e ? `${e.label ? `${e.label}: ` : ''}${e.message}` : failed ? `${failed}: the login through the identity provider failed.` : undefined
  const m = method.data
  return (
    <>
      <h1>svc console</h1>
      {/* Shown with the form, once svcd said which one (no notice above an empty page). */}
      {props.reason && !error && m ? <p class="notice">{props.reason}</p> : null}
      {method.error ? (
        <p class="error" role="alert">
          {method.error.message}
        </p>
      ) : null}
      {!m ? (method.loading ? <p aria-busy="true">Loading…</p> : null) : m.kind === 'redirect' ? (
        <p>
          <button type="button" class="primary" onClick={() => location.assign(m.url)}>
            Log in with OpenID Connect
          </button>
        </p>
      ) : m.kind === 'password' ? (
        <PasswordForm busy={act.busy} onLogin={(user, password) => void act.run(() => login({ kind: 'password', user, password }), leaveLoginPage)} />
      ) : (
        <TokenForm busy={act.busy} onLogin={(token) => void act.run(() => login({ kind: 'token', token }), leaveLoginPage)} />
      )}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  )
}

/** After a login on /ui/login…, the dashboard; on any other page, that page. */
function leaveLoginPage(): void {
  if (location.pathname.startsWith('/ui/login')) navigate('/ui/', true)
}

function TokenForm(props: { busy: boolean; onLogin: (token: string) => void }): JSX.Element {
  const [token, setToken] = useState('')
  return (
    <form onSubmit={onSubmit(() => props.onLogin(token.trim()))}>
      <div class="field">
        <label for="token">Token</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} />
        <small class="hint">The admin token of svcd (admin_token in its config, or the file it names at start-up).</small>
      </div>
      <button type="submit" disabled={props.busy || !token.trim()}>
        Log in
      </button>
    </form>
  )
}

function PasswordForm(props: { busy: boolean; onLogin: (user: string, password: string) => void }): JSX.Element {
  const [user, setUser] = useState('')
  const [password, setPassword] = useState('')
  return (
    <form onSubmit={onSubmit(() => props.onLogin(user.trim(), password))}>
      <div class="field">
        <label for="user">User</label>
        <input id="user" name="username" type="text" autocomplete="username" required value={user} onInput={(e) => setUser((e.target as HTMLInputElement).value)} />
      </div>
      <div class="field">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />
      </div>
      <button type="submit" disabled={props.busy || !user.trim() || !password}>
        Log in
      </button>
    </form>
  )
}

/** /ui/login/callback: the one-time code of svcd's cookie traded for a session, once. */
function Callback(): JSX.Element {
  const act = useAction()
  const asked = useRef(false)
  useEffect(() => {
    if (asked.current) return
    asked.current = true
    void act.run(() => login({ kind: 'exchange' }), () => navigate('/ui/', true))
  }, [])
  const e = act.error as LoginError | undefined
  return (
    <>
      <h1>svc console</h1>
      {e ? (
        <>
          <p class="error" role="alert">
            {e.label}: {e.message}
          </p>
          <p>
            <a href="/ui/login">Log in again</a>
          </p>
        </>
      ) : (
        <p aria-busy="true">Logging in…</p>
      )}
    </>
  )
}
