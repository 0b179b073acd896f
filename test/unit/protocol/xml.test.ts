/**
 * src/protocol/xml.ts: the safe parser (namespaces, entities, prologue, hostile inputs, limits, speed) and the
 * canonical builder.
 */
import t from 'tap'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { DecodeError } from '../../../src/util/errors.js'
import { buildXml, escapeAttr, escapeText, parseXml, XML_NS } from '../../../src/protocol/xml.js'

const SHARED = fileURLToPath(new URL('../../../../shared/fixtures/', import.meta.url))
const noShared = existsSync(SHARED) ? false : `shared fixtures not found at ${SHARED}: real-world fixture tests skipped`

function refused(tt: Pick<typeof t, 'throws'>, xml: string | Uint8Array, message: RegExp, opts?: { maxBytes?: number }): void {
  tt.throws(() => parseXml(xml, opts), { name: 'DecodeError', message }, String(message))
}

t.test('namespaces resolve by declaration, not by prefix spelling', async (t) => {
  const a = parseXml('<a:root xmlns:a="urn:x" b="1"><a:kid/><kid xmlns="urn:y"/><kid/></a:root>')
  t.equal(a.name, 'root')
  t.equal(a.ns, 'urn:x')
  t.same(a.attrs, { b: '1' })
  t.same(a.children.map((c) => [c.name, c.ns]), [['kid', 'urn:x'], ['kid', 'urn:y'], ['kid', '']])
  const b = parseXml('<root xmlns="urn:x"><p:kid xmlns:p="urn:z"><p:g xmlns:p="urn:w"/></p:kid><kid xmlns=""/></root>')
  t.same([b.children[0].ns, b.children[0].children[0].ns, b.children[1].ns], ['urn:z', 'urn:w', ''])
  const c = parseXml('<r xmlns="urn:x"><d xml:lang="en-US" q:x="1" xmlns:q="urn:q">text</d></r>')
  t.same(c.children[0].attrs, { 'xml:lang': 'en-US' }, 'xml:* kept, other prefixed attributes dropped')
  refused(t, '<p:root/>', /undeclared prefix "p"/)
  refused(t, '<root q:a="1"/>', /undeclared prefix "q"/)
  refused(t, '<root xmlns:p=""/>', /empty namespace/)
  refused(t, `<root xmlns:x="${XML_NS}"/>`, /reserved/)
})

t.test('prologue: declaration quotes, comments, BOM, CRLF, whitespace', async (t) => {
  for (const decl of ['<?xml version="1.0"?>', "<?xml version='1.0' encoding='UTF-8'?>", '<?xml version="1.0" encoding="utf-8" standalone="yes" ?>', '']) {
    t.equal(parseXml(`${decl}\n<!-- hello -->\n<r/>\n<!-- bye -->\n`).name, 'r', decl || 'no declaration')
  }
  t.equal(parseXml(Buffer.from('\ufeff<r>x</r>', 'utf8')).text, 'x', 'UTF-8 BOM in bytes')
  t.equal(parseXml('\ufeff<r>x</r>').text, 'x', 'BOM in a string')
  const crlf = parseXml('<r\r\n  a="1\r\n2">line1\r\nline2\rline3</r>\r\n')
  t.equal(crlf.text, 'line1\nline2\nline3')
  t.equal(crlf.attrs.a, '1 2', 'attribute whitespace is normalised (XML 1.0 §3.3.3)')
  t.equal(parseXml('<r><![CDATA[a<b&c]]></r>').text, 'a<b&c')
})

t.test('entities: the five predefined and character references only', async (t) => {
  const el = parseXml('<r a="&quot;&#x41;&#66;&apos;">&lt;&gt;&amp;&#x200B;&#10;</r>')
  t.equal(el.attrs.a, `"AB'`)
  t.equal(el.text, '<>&\u200b\n')
  refused(t, '<r>&nbsp;</r>', /entity reference &nbsp; is not allowed/)
  refused(t, '<r>a & b</r>', /bare "&"/)
  refused(t, '<r>&#0;</r>', /not an XML character/)
  refused(t, '<r>&#xD800;</r>', /not an XML character/)
})

t.test('hostile and malformed input is refused with the reason', async (t) => {
  refused(t, '<!DOCTYPE r [<!ENTITY x "y">]><r>&x;</r>', /DOCTYPE declaration is not allowed/)
  refused(t, '<?xml version="1.0"?><!DOCTYPE r SYSTEM "file:///etc/passwd"><r/>', /DOCTYPE/)
  refused(t, '<?xml version="1.0" encoding="ISO-8859-1"?><r/>', /encoding "ISO-8859-1"; only UTF-8/)
  refused(t, Uint8Array.from([0x3c, 0x72, 0x3e, 0xff, 0xfe, 0x3c, 0x2f, 0x72, 0x3e]), /not valid UTF-8/)
  refused(t, Uint8Array.from([0xff, 0xfe, 0x3c, 0x00]), /UTF-16/)
  refused(t, '<?xml-stylesheet href="x"?><r/>', /processing instructions are not allowed/)
  refused(t, '<r><?php echo 1 ?></r>', /processing instructions/)
  refused(t, '<r/><r/>', /more than one root/)
  refused(t, '<r/>trailing', /after the root/)
  refused(t, 'leading<r/>', /before the root/)
  refused(t, '', /no root element/)
  refused(t, '<r><a></r>', /end tag <\/r> does not match <a>/)
  refused(t, '<r><a>', /not closed/)
  refused(t, '<r a="1" a="2"/>', /appears twice/)
  refused(t, '<r a=1/>', /malformed/)
  refused(t, '<r a="<"/>', /malformed/)
  refused(t, '<r>\u0001</r>', /control character/)
  refused(t, `${'<a>'.repeat(100)}${'</a>'.repeat(100)}`, /nested deeper/)
  refused(t, `<r>${'x'.repeat(2000)}</r>`, /larger than the limit of 1000 bytes/, { maxBytes: 1000 })
  refused(t, Buffer.alloc(2000, 0x20), /larger than the limit/, { maxBytes: 1000 })
})

t.test('rpki-client regress: XXE and billion laughs are refused before any expansion', { skip: noShared }, async (t) => {
  for (const f of ['xxe.xml', 'billion_lol.xml']) {
    const bytes = readFileSync(`${SHARED}rrdp/rpki-client-regress/${f}`)
    t.throws(() => parseXml(bytes), new DecodeError('XML 1.0 §2.8', 'a DOCTYPE declaration is not allowed (no DTDs, entity declarations or external entities)'), f)
  }
})

t.test('builder: canonical layout, attribute order, escaping, round trip', async (t) => {
  const xml = buildXml(
    { name: 'root', attrs: { b: '2', a: 'x"<&>\n', skip: undefined }, children: [{ name: 'empty' }, { name: 'txt', text: 'a<b & c>d\r' }, { name: 'nest', children: [{ name: 'leaf', attrs: { n: 1 } }] }] },
    { ns: 'urn:x', declaration: true },
  )
  t.equal(
    xml,
    '<?xml version="1.0" encoding="UTF-8"?>\n<root xmlns="urn:x" b="2" a="x&quot;&lt;&amp;&gt;&#10;">\n  <empty/>\n  <txt>a&lt;b &amp; c&gt;d&#13;</txt>\n  <nest>\n    <leaf n="1"/>\n  </nest>\n</root>\n',
  )
  const back = parseXml(xml)
  t.equal(back.attrs.a, 'x"<&>\n')
  t.equal(back.children[1].text, 'a<b & c>d\r')
  t.equal(escapeText('plain'), 'plain')
  t.equal(escapeAttr('a\tb'), 'a&#9;b')
})

t.test('speed: 32 MiB with 16,000 elements parses well under 1.5 s', async (t) => {
  const body = 'QUJD'.repeat(500) // 2,000 characters
  const parts = ['<msg xmlns="urn:x" version="4" type="query">\n']
  let size = 0
  for (let i = 0; size < 32 * 1024 * 1024; i++) {
    const line = `  <publish uri="rsync://example.net/repo/ca/object-${i}.roa">${body}\n${body}</publish>\n`
    parts.push(line)
    size += line.length
  }
  parts.push('</msg>\n')
  const xml = parts.join('')
  const start = performance.now()
  const root = parseXml(xml)
  const ms = performance.now() - start
  t.ok(root.children.length > 8000, `${root.children.length} elements`)
  t.ok(ms < 1500, `parsed ${(xml.length / 1048576).toFixed(1)} MiB in ${ms.toFixed(0)} ms`)
})
