/** Shared pieces of the console: page frame, errors, forms, file upload and download (lists: list.tsx). */
import type { ComponentChildren, JSX } from 'preact'
import { useState } from 'preact/hooks'
import { useAction } from './load.js'
import { ApiError } from './api.js'
import { later } from './clock.js'
import { navigate } from './router.js'

/** A link inside the console (no reload); modified clicks open normally. */
export function Link(props: { href: string; children: ComponentChildren; current?: boolean; class?: string }): JSX.Element {
  const click = (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
    e.preventDefault()
    navigate(props.href)
  }
  return (
    <a href={props.href} onClick={click} class={props.class} aria-current={props.current ? 'page' : undefined}>
      {props.children}
    </a>
  )
}

/** The error of a call: the server's label and message, and each detail (a refused ROA delta lists its lines). */
export function ErrorBox(props: { error: Error | undefined; title?: string }): JSX.Element | null {
  const e = props.error
  if (!e) return null
  const body = e instanceof ApiError ? e.body : undefined
  const details = body ? Object.entries(body).filter(([k]) => !['label', 'msg', 'args', 'delta_error'].includes(k)) : []
  // A 403 names the permission the role lacks (and the CA): api-insufficient-rights's args, unless its message does.
  const permission = body?.args?.permission && !e.message.includes(body.args.permission) ? body.args.permission : undefined
  const ca = body?.args?.ca
  return (
    <div class="error" role="alert">
      <p>
        {props.title ? <strong>{props.title}: </strong> : null}
        {body ? <code class="label">{body.label}</code> : null} {e.message.split('\n\n')[0]!.replace(/,? see included json\.?$/i, '').replace(/:$/, '')}
        {permission ? (
          <>
            {' '}
            (missing permission: <code data-testid="missing-permission">{permission}</code>
            {ca ? ` on CA ${ca}` : ''})
          </>
        ) : null}
      </p>
      {details.length > 0 ? (
        <ul>
          {details.map(([k, v]) => (
            <li key={k}>
              {k}: {typeof v === 'string' ? v : JSON.stringify(v)}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}

export function Loading(props: { what?: string }): JSX.Element {
  return <p aria-busy="true">Loading{props.what ? ` ${props.what}` : ''}…</p>
}

/** A labelled input. */
export function Field(props: { label: string; value: string; onInput: (v: string) => void; name?: string; placeholder?: string; required?: boolean; hint?: string; size?: number }): JSX.Element {
  const id = `f-${props.name ?? props.label.replace(/\W+/g, '-').toLowerCase()}`
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input id={id} name={props.name} type="text" value={props.value} placeholder={props.placeholder} required={props.required} size={props.size} aria-describedby={props.hint ? `${id}-hint` : undefined} onInput={(e) => props.onInput((e.target as HTMLInputElement).value)} />
      {props.hint ? (
        <small id={`${id}-hint`} class="hint">
          {props.hint}
        </small>
      ) : null}
    </div>
  )
}

/** A labelled file input that hands over the file's text. */
export function FileField(props: { label: string; name: string; onText: (text: string, name: string) => void; accept?: string }): JSX.Element {
  const id = `file-${props.name}`
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type="file"
        accept={props.accept}
        onChange={async (e) => {
          const f = (e.target as HTMLInputElement).files?.[0]
          if (f) props.onText(await f.text(), f.name)
        }}
      />
    </div>
  )
}

/** Save text as a file in the browser (an RFC 8183 document, a CSV export). */
export function saveFile(name: string, text: string, type: string): void {
  const href = URL.createObjectURL(new Blob([text], { type }))
  const a = document.createElement('a')
  a.href = href
  a.download = name
  document.body.appendChild(a)
  a.click()
  a.remove()
  later(() => URL.revokeObjectURL(href), 10_000)
}

/** A button that fetches a document and saves it; the error shows next to it. */
export function DownloadButton(props: { label: string; file: string; fetch: () => Promise<string>; type?: string }): JSX.Element {
  const act = useAction()
  return (
    <span class="download">
      <button type="button" onClick={() => void act.run(async () => saveFile(props.file, await props.fetch(), props.type ?? 'application/xml'))} disabled={act.busy}>
        {props.label}
      </button>
      <ErrorBox error={act.error} />
    </span>
  )
}

/** A section with a form: its fields, the submit button, what shows while it runs, the error of the last try, and what it did. */
export function FormSection(props: { title: string; submit: string; onSubmit: () => void; busy: boolean; disabled?: boolean; error: Error | undefined; errorTitle: string; busyText?: string; done?: ComponentChildren; children: ComponentChildren }): JSX.Element {
  return (
    <Section title={props.title}>
      <form class="inline" onSubmit={onSubmit(props.onSubmit)}>
        {props.children}
        <button type="submit" disabled={props.busy || props.disabled}>
          {props.submit}
        </button>
      </form>
      {props.busy && props.busyText ? <p aria-busy="true">{props.busyText}</p> : null}
      <ErrorBox error={props.error} title={props.errorTitle} />
      {props.done}
    </Section>
  )
}

/** A destructive button that asks once more, in place (no modal dialog). */
export function ConfirmButton(props: { label: string; confirm: string; onConfirm: () => void; disabled?: boolean }): JSX.Element {
  const [asking, setAsking] = useState(false)
  if (!asking)
    return (
      <button type="button" class="danger" disabled={props.disabled} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    )
  return (
    <span class="confirm">
      <button type="button" class="danger" onClick={() => (setAsking(false), props.onConfirm())}>
        {props.confirm}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  )
}

/** A section with a heading. */
export function Section(props: { title: string; children: ComponentChildren; id?: string }): JSX.Element {
  const id = props.id ?? `s-${props.title.replace(/\W+/g, '-').toLowerCase()}`
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{props.title}</h2>
      {props.children}
    </section>
  )
}

/** Unix seconds or milliseconds or an ISO string, as a UTC time. */
export function when(t: number | string | null | undefined): string {
  if (t === null || t === undefined) return 'never'
  const d = typeof t === 'string' ? new Date(t) : new Date(t < 1e12 ? t * 1000 : t)
  return Number.isNaN(d.getTime()) ? String(t) : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')
}

/** Resources as "AS… | IPv4 … | IPv6 …", or "none". */
export function resourcesText(r: { asn?: string; ipv4?: string; ipv6?: string } | undefined): string {
  if (!r) return 'none'
  const parts = [r.asn ? `AS ${r.asn}` : '', r.ipv4 ? `IPv4 ${r.ipv4}` : '', r.ipv6 ? `IPv6 ${r.ipv6}` : ''].filter(Boolean)
  return parts.length ? parts.join(' · ') : 'none'
}

/** The value of a form submit, without the page reload. */
export function onSubmit(fn: () => void) {
  return (e: Event) => {
    e.preventDefault()
    fn()
  }
}
