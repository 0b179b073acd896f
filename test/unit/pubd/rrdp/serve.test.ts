/**
 * Serving RRDP files (src/pubd/rrdp/serve.ts, reached through RrdpWriter.file and OutputService.rrdpFile): the size, ETag and bytes all come from one file, even when the
 * notification is replaced by a rename between the lookup and the reading (as the RRDP writer does at any moment).
 * Taking the size from the name and opening it later sent a Content-Length of one file with bytes of another: a
 * relying party got a cut-off notification.
 */
import t from 'tap'
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ReadStream } from 'node:fs'
import { openRrdpFile } from '../../../../src/pubd/rrdp/serve.js'

function read(stream: ReadStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    stream.on('data', (c) => chunks.push(c as Buffer)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject)
  })
}

t.test('a notification replaced while it is being served: size and bytes are of the same file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-rrdp-serve-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const rrdp = join(dir, 'repo', 'rrdp')
  mkdirSync(rrdp, { recursive: true })
  // Serving reads the files only: no writer, store or service is involved.
  const pub = { rrdpFile: (rel: string) => openRrdpFile(rrdp, rel) }
  const older = '<notification serial="1"/>\n'
  const newer = `<notification serial="2">${'<delta/>'.repeat(100)}</notification>\n`

  for (const [first, second] of [[older, newer], [newer, older]]) {
    writeFileSync(join(rrdp, 'notification.xml'), first)
    const file = pub.rrdpFile('notification.xml')!
    t.ok(file.notification, 'served as the notification (short cache lifetime)')
    // The writer replaces the notification after the lookup and before the first byte is read.
    writeFileSync(join(rrdp, 'notification.xml.tmp'), second)
    renameSync(join(rrdp, 'notification.xml.tmp'), join(rrdp, 'notification.xml'))
    const body = await read(file.stream)
    t.equal(body.length, file.size, 'the bytes sent are as many as the Content-Length says')
    t.equal(body.toString(), first, 'and they are the file that was looked up, whole')
  }
  t.equal(pub.rrdpFile('nothing-here.xml'), undefined, 'an unknown file is undefined (404), not an error')
  t.equal(pub.rrdpFile('../svcd.db'), undefined, 'a path outside /rrdp/ is undefined')
})
