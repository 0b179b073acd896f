/** Our own objects pinned byte for byte: fixtures/objects/ holds exactly what the library builds from the fixed keys. */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import t from 'tap'
import { goldenObjects } from '../../helpers/golden-objects.js'
import { fixture } from '../../helpers/paths.js'

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => (statSync(join(dir, e)).isDirectory() ? walk(join(dir, e)) : [join(dir, e)]))
}

t.test('every golden object is rebuilt byte for byte (RSASSA-PKCS1-v1_5 signatures are deterministic)', async (t) => {
  const root = fixture('objects')
  const built = goldenObjects()
  const onDisk = walk(root).map((f) => relative(root, f)).sort()
  t.same(onDisk, [...built.keys()].sort(), 'the same files (rewrite with: node --loader @isaacs/ts-node-temp-fork-for-pr-2009/esm test/helpers/golden-objects.ts)')
  for (const [p, bytes] of built) t.same(new Uint8Array(readFileSync(join(root, p))), bytes, p)
})
