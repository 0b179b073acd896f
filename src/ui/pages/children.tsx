/**
 * /ui/cas/{ca}/children: the CA's children, searched, sorted and paged by svcd (GET …/children); add one from its RFC 8183 child request with resources
 * (and download the parent response for it), change its resources, suspend or resume it, remove it.
 */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { Can } from '../access.js'
import { api, asText, ok } from '../api.js'
import { ConfirmButton, DownloadButton, ErrorBox, FileField, Field, onSubmit, resourcesText, Section } from '../components.js'
import { ListView, SortSelect, useList } from '../list.js'
import { useAction } from '../load.js'
import { readChildRequest } from '../rfc8183.js'
import { CaHeader } from './ca-tabs.js'

const SORTS = ['handle', 'state'] as const

export function ChildrenPage(props: { ca: string }): JSX.Element {
  const list = useList({ load: (query) => ok(api.GET('/cas/{ca}/children', { params: { path: { ca: props.ca }, query } })).then((p) => ({ total: p.total, items: p.children })), deps: [props.ca], sorts: SORTS, pageSizes: [25, 100, 500] })
  return (
    <>
      <CaHeader ca={props.ca} title="Children" />
      <Can need="ca-update" ca={props.ca}>
        <AddChild ca={props.ca} onAdded={list.reload} />
      </Can>
      <Section title="Children">
        <ListView list={list} label="Children" search="handle or resources" empty="No children." noMatch="No child matches the search." rowKey={(c) => c.handle} toolbar={<SortSelect list={list} options={[['handle', 'Handle'], ['state', 'State (active first)']]} />} item={(c) => <Child key={`${c.handle}|${resourcesText(c.entitled_resources)}`} ca={props.ca} child={c.handle} state={c.state} resources={c.entitled_resources} onChange={list.reload} />}
        />
      </Section>
    </>
  )
}

function AddChild(props: { ca: string; onAdded: () => void }): JSX.Element {
  const [handle, setHandle] = useState('')
  const [idCert, setIdCert] = useState('')
  const [asn, setAsn] = useState('')
  const [ipv4, setIpv4] = useState('')
  const [ipv6, setIpv6] = useState('')
  const [added, setAdded] = useState<string | undefined>()
  const add = useAction()
  const submit = () =>
    add.run(
      async () => {
        if (!idCert) throw new Error("choose the child's RFC 8183 child request (XML)")
        await ok(api.POST('/cas/{ca}/children', { params: { path: { ca: props.ca } }, body: { handle: handle.trim(), id_cert: idCert, resources: { asn: asn.trim(), ipv4: ipv4.trim(), ipv6: ipv6.trim() } } }))
      },
      () => (setAdded(handle.trim()), props.onAdded()),
    )
  return (
    <Section title="Add a child">
      <form onSubmit={onSubmit(() => void submit())}>
        <FileField
          label="Child request (RFC 8183 XML)"
          name="child-request"
          accept=".xml,application/xml"
          onText={(text) => {
            add.clear()
            try {
              const r = readChildRequest(text)
              setIdCert(r.idCert)
              setHandle(r.handle)
            } catch (e) {
              setIdCert('')
              void add.run(() => Promise.reject(e))
            }
          }}
        />
        <div class="inline">
          <Field label="Child handle" name="child-handle" value={handle} onInput={setHandle} required />
          <Field label="AS resources" name="child-asn" value={asn} onInput={setAsn} placeholder="AS65000-AS65010" />
          <Field label="IPv4 resources" name="child-ipv4" value={ipv4} onInput={setIpv4} placeholder="10.0.0.0/16" />
          <Field label="IPv6 resources" name="child-ipv6" value={ipv6} onInput={setIpv6} placeholder="2001:db8::/32" />
        </div>
        <button type="submit" disabled={add.busy}>
          Add child
        </button>
      </form>
      <ErrorBox error={add.error} title="Not added" />
      {added ? (
        <p class="ok" role="status">
          Added {added}.{' '}
          <DownloadButton label={`Download the parent response for ${added}`} file={`${added}-parent-response.xml`} fetch={() => ok(api.GET('/cas/{ca}/children/{child}/parent_response.xml', { params: { path: { ca: props.ca, child: added } }, ...asText }))} />
        </p>
      ) : null}
    </Section>
  )
}

function Child(props: { ca: string; child: string; state: string; resources: { asn: string; ipv4: string; ipv6: string }; onChange: () => void }): JSX.Element {
  const p = { params: { path: { ca: props.ca, child: props.child } } }
  const [editing, setEditing] = useState(false)
  const [asn, setAsn] = useState(props.resources.asn)
  const [ipv4, setIpv4] = useState(props.resources.ipv4)
  const [ipv6, setIpv6] = useState(props.resources.ipv6)
  const act = useAction()
  const suspended = props.state === 'suspended'
  return (
    <article class="item" aria-labelledby={`child-${props.child}`}>
      <h3 id={`child-${props.child}`}>
        {props.child} <span class={suspended ? 'badge bad' : 'badge ok'}>{props.state}</span>
      </h3>
      <p>{resourcesText(props.resources)}</p>
      <div class="buttons">
        <DownloadButton label="Parent response" file={`${props.child}-parent-response.xml`} fetch={() => ok(api.GET('/cas/{ca}/children/{child}/parent_response.xml', { ...p, ...asText }))} />
        <Can need="ca-update" ca={props.ca}>
        <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
          Change resources
        </button>
        <button type="button" disabled={act.busy} onClick={() => void act.run(() => ok(api.POST('/cas/{ca}/children/{child}', { ...p, body: { suspend: !suspended } })), props.onChange)}>
          {suspended ? 'Resume' : 'Suspend'}
        </button>
        <ConfirmButton label="Remove" confirm={`Yes, remove ${props.child}`} onConfirm={() => void act.run(() => ok(api.DELETE('/cas/{ca}/children/{child}', p)), props.onChange)} />
        </Can>
      </div>
      {editing ? (
        <form class="inline" onSubmit={onSubmit(() => void act.run(() => ok(api.POST('/cas/{ca}/children/{child}', { ...p, body: { resources: { asn, ipv4, ipv6 } } })), () => (setEditing(false), props.onChange())))}>
          <Field label="AS resources" name={`asn-${props.child}`} value={asn} onInput={setAsn} />
          <Field label="IPv4 resources" name={`ipv4-${props.child}`} value={ipv4} onInput={setIpv4} />
          <Field label="IPv6 resources" name={`ipv6-${props.child}`} value={ipv6} onInput={setIpv6} />
          <button type="submit">Save resources</button>
        </form>
      ) : null}
      <ErrorBox error={act.error} title="Nothing changed" />
    </article>
  )
}
