/**
 * Test helper: validate XML against the RELAX NG schemas of RFC 6492, 8181, 8182 and 8183 (fixtures/schemas/) with
 * `xmllint --noout --relaxng`. Tests call {@link xmllintMissing} first and skip with its message when xmllint is absent.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export type SchemaName = 'rfc6492' | 'rfc8181' | 'rfc8182' | 'rfc8183'

const XMLLINT = '/usr/bin/xmllint'
const SCHEMAS = new URL('../../fixtures/schemas/', import.meta.url)

/** Why schema checks cannot run here (a message for `t.test(name, { skip })`), or false when they can. */
export function xmllintMissing(): string | false {
  if (existsSync(XMLLINT)) return false
  const found = spawnSync('xmllint', ['--version'], { encoding: 'utf8' })
  return found.error ? 'xmllint is not installed (apt-get install libxml2-utils): RELAX NG schema checks skipped' : false
}

/** Run `xmllint --noout --relaxng fixtures/schemas/<schema>.rng -` on the document; output is xmllint's stderr. */
export function validateWithSchema(xml: string, schema: SchemaName): { ok: boolean; output: string } {
  const rng = fileURLToPath(new URL(`${schema}.rng`, SCHEMAS))
  const bin = existsSync(XMLLINT) ? XMLLINT : 'xmllint'
  const r = spawnSync(bin, ['--noout', '--relaxng', rng, '-'], { input: xml, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  if (r.error) throw r.error
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}`.trim() }
}
