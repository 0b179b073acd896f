/**
 * src/protocol/xml.ts: the safe parser (namespaces, entities, prologue, hostile inputs, limits, speed) and the
 * canonical builder, both over fast-xml-parser / xmlbuilder2, including the gaps of those libraries that xml.ts
 * closes (lenient parser, names cut at Unicode spaces or renamed, reference-shaped text left unescaped).
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

t.test('what the libraries let through is refused here', async (t) => {
  refused(t, '<r a="1"=/>', /start tag <r> is malformed/)
  refused(t, '<r a="1" b="2"=><x/></r>', /start tag <r> is malformed/)
  refused(t, '<r:a:b xmlns:r="urn:r"/>', /malformed/)
  refused(t, '<:r/>', /malformed/)
  refused(t, '<r></r\u3000>', /malformed end tag closes <r>/)
  refused(t, '<r\ufeff></r>', /start tag <r> is malformed/)
  refused(t, '<r u\ufeffri="x"/>', /malformed/)
  refused(t, '<r/>trailing', /after the root/)
  refused(t, '<r/><r/>', /more than one root/)
  refused(t, '<r/><![CDATA[x]]>', /after the root/)
  refused(t, '<![CDATA[x]]><r/>', /before the root/)
  refused(t, '<r/><!-- open', /comment is not closed/)
  refused(t, '<r><![CDATA[open</r>', /CDATA section is not closed/)
  refused(t, '<r/', /not well-formed/)
  refused(t, '<r></x></r>', /does not match/)
  refused(t, '<r/></x>', /after the root/)
  refused(t, '<!ENTITY x "y"><r/>', /markup declarations are not allowed/)
  refused(t, '<r><!ELEMENT r ANY></r>', /markup declarations are not allowed/)
  refused(t, '<r/><?xml version="1.0"?>', /processing instructions/)
  refused(t, '<r>&#x;</r>', /entity reference/)
  refused(t, '<constructor/>', /not accepted/)
  refused(t, '<r><c></d</c></r>', /"<" is not part of a well-formed tag/)
  refused(t, '<r>x</y</r>', /"<" is not part of a well-formed tag/)
  refused(t, '<r xmlns="urn:a" xmlns="urn:b"/>', /appears twice/)
  refused(t, '<r xml:lang="a" xml:lang="b"/>', /appears twice/)
  refused(t, '<r>a < b</r>', /start tag <> is malformed/)
})

t.test('what must still pass: markup inside comments and CDATA, names the library would rename', async (t) => {
  t.equal(parseXml('<!-- <!DOCTYPE x> <?pi?> --><r/>').name, 'r')
  t.equal(parseXml('<r><![CDATA[<!DOCTYPE x><?pi?><!-- ]]></r>').text, '<!DOCTYPE x><?pi?><!-- ')
  const el = parseXml('<toString hasOwnProperty="1" valueOf="2"><__proto__x/></toString>')
  t.equal(el.name, 'toString')
  t.same(el.attrs, { hasOwnProperty: '1', valueOf: '2' })
  t.equal(el.children[0].name, '__proto__x')
  t.equal(parseXml('<r a = "1"\n b=\'2\'></r >').attrs.b, '2')
  t.equal(parseXml('<r>a<!-- c -->b<![CDATA[]]>c</r>').text, 'abc')
  t.equal(parseXml('<r>\u00e9\u{1F600}</r>').text, '\u00e9\u{1F600}')
  t.equal(parseXml('<\u00e9l\u00e9ment/>').name, '\u00e9l\u00e9ment')
})

t.test('depth: 64 levels pass, a 65th is refused, self-closed or not', async (t) => {
  const nest = (n: number, inner: string) => `${'<a>'.repeat(n)}${inner}${'</a>'.repeat(n)}`
  t.equal(parseXml(nest(63, '<b/>')).name, 'a')
  refused(t, nest(64, '<b/>'), /nested deeper than 64/)
  refused(t, nest(64, '<b></b>'), /nested deeper than 64/)
  refused(t, nest(10000, ''), /nested deeper than 64/)
})

t.test('errors are always DecodeErrors: mutated documents', async (t) => {
  const base = `<?xml version="1.0"?>\n<!-- c --><p:r xmlns:p="urn:p" xmlns="urn:d" a="&#x41;"><p:k xml:lang="en">t&amp;u<![CDATA[<&>]]></p:k><k b='x'/></p:r>\n`
  const tokens = ['<', '>', '/', '"', "'", '=', ' ', '\n', '&', ';', '&#0;', '&x;', '<!--', '-->', '<![CDATA[', ']]>', '<?', '?>', '<!DOCTYPE r>', '<a>', '</a>', '<a/>', 'q:', ':', 'xmlns:q="u"', '\u3000', '\ufeff']
  let seed = 7
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n)
  let accepted = 0
  for (let i = 0; i < 3000; i++) {
    let s = base
    for (let k = 1 + rand(3); k > 0; k--) {
      const at = rand(s.length + 1)
      s = s.slice(0, at) + (rand(3) === 0 ? '' : tokens[rand(tokens.length)]) + s.slice(at + rand(3))
    }
    try {
      parseXml(s)
      accepted++
    } catch (e) {
      if (!(e instanceof DecodeError)) t.fail(`${JSON.stringify(s)}: ${String(e)}`)
    }
  }
  t.ok(accepted > 100 && accepted < 2900, `${accepted} of 3000 accepted, the rest refused with a DecodeError`)
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

t.test('builder: reference-shaped text is escaped too (xmlbuilder2 alone would leave it), byte for byte', async (t) => {
  const text = 'a &amp; b &#65; &lt; &x; ]]> \u200b'
  const xml = buildXml({ name: 'r', attrs: { v: '&quot;"\t', n: 7n }, children: [{ name: 't', text }, { name: 'e', text: '' }, { name: 'c', children: [], text: 'kept' }] }, { ns: 'urn:x' })
  t.equal(
    xml,
    '<r xmlns="urn:x" v="&amp;quot;&quot;&#9;" n="7">\n  <t>a &amp;amp; b &amp;#65; &amp;lt; &amp;x; ]]&gt; \u200b</t>\n  <e/>\n  <c>kept</c>\n</r>\n',
  )
  const back = parseXml(xml)
  t.equal(back.attrs.v, '&quot;"\t')
  t.equal(back.children[0].text, text)
  t.equal(buildXml({ name: 'p', text: 'x', children: [{ name: 'q' }] }, { ns: 'urn:y' }), '<p xmlns="urn:y">\n  <q/>\n</p>\n', 'text beside children is left out')
  t.equal(buildXml({ name: 'p', attrs: { 'xml:lang': 'en-US' } }, { ns: 'urn:y' }), '<p xmlns="urn:y" xml:lang="en-US"/>\n')
})

t.test('32 MiB with 8,000 elements parses (its speed is measured by make bench)', async (t) => {
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
  const times: number[] = []
  let root = parseXml('<r/>')
  for (let i = 0; i < 2; i++) {
    const start = performance.now()
    root = parseXml(xml)
    times.push(performance.now() - start)
  }
  t.ok(root.children.length > 8000, `${root.children.length} elements`)
  t.comment(`parsed ${(xml.length / 1048576).toFixed(1)} MiB in ${times.map((ms) => ms.toFixed(0)).join(' ms, ')} ms`)
  const small = `<msg xmlns="urn:x" version="4" type="query">\n${'  <publish uri="rsync://example.net/repo/a.roa">QUJD</publish>\n'.repeat(30)}</msg>\n`
  const start = performance.now()
  for (let i = 0; i < 1000; i++) parseXml(small)
  t.comment(`a ${small.length}-byte message: ${((performance.now() - start) / 1000).toFixed(3)} ms`)
})
