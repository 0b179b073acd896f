/**
 * /ui/tokens: my API tokens (issue 24, beyond Krill): the list (name, role and permissions, CAs, created, expires,
 * last use, revoked), a new one (a name, my role or some of my permissions, optionally fewer CAs, an expiry; svcd
 * refuses anything wider than my role) whose secret is shown once, here only, with a copy button; revoking one, after
 * asking. GET/POST /api/v1/tokens, DELETE /api/v1/tokens/{id}; svcd keeps only a hash of each secret.
 */
import type { JSX } from 'preact'
import type { components } from 'svc-api-schema'
import { useState } from 'preact/hooks'
import { call } from '../api.js'
import { ConfirmButton, ErrorBox, Field, FormSection, Section, when } from '../components.js'
import { DataTable } from '../list.js'
import { useAction, useLoad } from '../load.js'
import { currentSession } from '../session.js'

/** A token as GET /api/v1/tokens lists it (never its secret): the shape of the OpenAPI description. */
export type TokenJson = components['schemas']['TokenJson']

interface NewToken {
  name: string
  role?: string
  permissions?: string[]
  cas?: string[]
  expires?: string
}

export function TokensPage(): JSX.Element {
  const tokens = useLoad(() => call<components['schemas']['TokenListJson']>('GET', '/tokens'), [])
  const [secret, setSecret] = useState<{ name: string; token: string } | undefined>()
  const revoke = useAction()
  const list = tokens.data?.tokens ?? []
  return (
    <>
      <h1>API tokens</h1>
      <p>A token lets a script or svcc act as you, with your role or less, until it expires or is revoked. Everything it does names you and the token.</p>
      <AddToken onAdded={(t) => (setSecret(t), tokens.reload())} />
      {secret ? <Secret {...secret} onDone={() => setSecret(undefined)} /> : null}
      <Section title="My tokens">
        <ErrorBox error={tokens.error} />
        <ErrorBox error={revoke.error} title="Not revoked" />
        {tokens.data && list.length === 0 ? <p>No tokens yet.</p> : null}
        {list.length > 0 ? (
          <DataTable
            class="tokens"
            items={list}
            rowKey={(t) => t.id}
            rowClass={(t) => (t.revoked ? 'revoked' : undefined)}
            columns={[
              { label: 'Name', cell: (t) => t.name },
              { label: 'Role', cell: (t) => (<>{t.role}<details><summary>{t.permissions.length} permissions</summary>{t.permissions.join(', ')}</details></>) },
              { label: 'CAs', cell: (t) => (t.cas ? t.cas.join(', ') : 'all of the role') },
              { label: 'Created', cell: (t) => when(t.created) },
              { label: 'Expires', cell: (t) => (t.expires ? when(t.expires) : 'never') },
              { label: 'Last use', testid: 'token-last-used', cell: (t) => when(t.last_used) },
              { label: 'Revoked', testid: 'token-revoked', cell: (t) => (t.revoked ? when(t.revoked) : 'no') },
              { label: 'Actions', cell: (t) => (t.revoked ? null : <ConfirmButton label={`Revoke ${t.name}`} confirm={`Yes, revoke ${t.name}`} disabled={revoke.busy} onConfirm={() => void revoke.run(() => call('DELETE', `/tokens/${encodeURIComponent(t.id)}`), tokens.reload)} />) },
            ]}
          />
        ) : null}
      </Section>
    </>
  )
}

function AddToken(props: { onAdded: (t: { name: string; token: string }) => void }): JSX.Element {
  const who = currentSession()?.who
  const mine = who?.permissions ?? []
  const [name, setName] = useState('')
  const [scope, setScope] = useState<'role' | 'permissions'>('role')
  const [role, setRole] = useState(who?.role ?? '')
  const [chosen, setChosen] = useState<string[]>([])
  const [cas, setCas] = useState('')
  const [expires, setExpires] = useState('')
  const add = useAction()
  const roles = [...new Set([who?.role ?? '', 'readonly', 'readwrite'].filter(Boolean))]
  const submit = () =>
    add.run(async () => {
      const body: NewToken = { name: name.trim() }
      if (scope === 'role') body.role = role
      else {
        if (chosen.length === 0) throw new Error('choose at least one permission')
        body.permissions = chosen
      }
      const list = cas.split(/[\s,]+/).filter(Boolean)
      if (list.length) body.cas = list
      if (expires) body.expires = `${expires}T00:00:00Z`
      const r = await call<TokenJson & { token: string }>('POST', '/tokens', body)
      setName('')
      props.onAdded({ name: r.name, token: r.token })
    })
  return (
    <FormSection title="New token" submit="Create token" busy={add.busy} disabled={!name.trim()} error={add.error} errorTitle="Not created" onSubmit={() => void submit()}>
      <Field label="Name" name="token-name" value={name} onInput={setName} required hint="Unique among your tokens, e.g. the script that uses it" />
      <fieldset class="field">
        <legend>What it may do</legend>
        <label>
          <input type="radio" name="scope" value="role" checked={scope === 'role'} onChange={() => setScope('role')} /> A role
        </label>
        <label>
          <input type="radio" name="scope" value="permissions" checked={scope === 'permissions'} onChange={() => setScope('permissions')} /> Some of my permissions
        </label>
      </fieldset>
      {scope === 'role' ? (
        <div class="field">
          <label for="token-role">Role</label>
          <select id="token-role" name="token-role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value)}>
            {roles.map((r) => (
              <option key={r} value={r}>
                {r}
                {r === who?.role ? ' (mine)' : ''}
              </option>
            ))}
          </select>
        </div>
      ) : (
        <fieldset class="field permissions">
          <legend>Permissions</legend>
          {mine.map((p) => (
            <label key={p}>
              <input type="checkbox" name="permission" value={p} checked={chosen.includes(p)} onChange={(e) => setChosen((e.target as HTMLInputElement).checked ? [...chosen, p] : chosen.filter((x) => x !== p))} /> {p}
            </label>
          ))}
        </fieldset>
      )}
      <Field label="CAs" name="token-cas" value={cas} onInput={setCas} placeholder={who?.cas ? who.cas.join(', ') : 'all'} hint={who?.cas ? `Some of ${who.cas.join(', ')}; empty for all of them` : 'Handles separated by commas; empty for all CAs of the role'} />
      <div class="field">
        <label for="token-expires">Expires (UTC day)</label>
        <input id="token-expires" name="token-expires" type="date" value={expires} onInput={(e) => setExpires((e.target as HTMLInputElement).value)} aria-describedby="token-expires-hint" />
        <small id="token-expires-hint" class="hint">
          Empty: never
        </small>
      </div>
    </FormSection>
  )
}

/** The new token's secret, shown this once: svcd keeps only its hash. */
function Secret(props: { name: string; token: string; onDone: () => void }): JSX.Element {
  const [copied, setCopied] = useState<string | undefined>()
  const copy = () =>
    navigator.clipboard.writeText(props.token).then(
      () => setCopied('Copied.'),
      () => setCopied('The browser refused to copy: select the text and copy it.'),
    )
  return (
    <Section title={`The secret of ${props.name}`}>
      <p class="notice" role="status">
        Copy it now: it is shown only this once, and svcd cannot show it again. Anyone who holds it acts as you.
      </p>
      <div class="field">
        <label for="token-secret">Secret</label>
        <input id="token-secret" type="text" readOnly value={props.token} size={60} onFocus={(e) => (e.target as HTMLInputElement).select()} data-testid="token-secret" />
      </div>
      <div class="buttons">
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" onClick={props.onDone}>
          I have copied it
        </button>
      </div>
      {copied ? <p role="status">{copied}</p> : null}
    </Section>
  )
}
