/**
 * TALs that resolve (issue 26 §4): /ta/ta.tal and /ta/ta-next.tal are served only once the certificate they name is
 * in both the RRDP output (the current notification's snapshot, same bytes) and the rsync output (the current tree,
 * same bytes). With the rsync daemon on, from the moment a TAL answers 200 the real rsync client fetches the
 * certificate at once, and the RRDP snapshot holds it: at start for ta.tal, and after a TA key roll's init for the
 * successor's ta-next.tal (before: rpki-client over rsync failed with `link_stat … No such file` for ~11 s).
 */
import t, { type Test } from 'tap'
import { decodeTal } from '../../src/objects/tal.js'
import { repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'
import { readRrdp, rsyncFetch, sha } from '../helpers/repo.js'

const get = (d: RepoDaemon, path: string) => httpsRequest(`${d.url}${path}`, { binary: true })

/** Poll `path` every 50 ms until it answers 200; the TAL, and how many 404s came before. */
async function firstTal(d: RepoDaemon, path: string): Promise<{ rsyncUri: string; httpsUri: string; refused: number }> {
  let refused = 0
  const raw = await waitFor(`${path} served`, async () => {
    const r = await get(d, path)
    if (r.status === 404) refused++
    return r.status === 200 ? r.raw : undefined
  }, 120_000, 50)
  const tal = decodeTal(new Uint8Array(raw))
  return { httpsUri: tal.uris.find((u) => u.startsWith('https://'))!, rsyncUri: tal.uris.find((u) => u.startsWith('rsync://'))!, refused }
}

/** The certificate the TAL names is in the rsync tree (fetched now with the rsync client) and in the RRDP snapshot, same bytes. */
async function resolves(t: Test, d: RepoDaemon, tal: { rsyncUri: string; httpsUri: string }, what: string): Promise<void> {
  const rel = tal.rsyncUri.slice(d.rsyncBase.length)
  const files = rsyncFetch(`${d.rsyncBase}${rel.slice(0, rel.lastIndexOf('/') + 1)}`)
  const cer = await httpsRequest(tal.httpsUri, { binary: true })
  t.equal(cer.status, 200, `${what}: the https URI answers`)
  const hash = sha(cer.raw)
  t.equal(files.get(rel.slice(rel.lastIndexOf('/') + 1)), hash, `${what}: rsync fetches ${rel} at once, the same bytes`)
  t.equal((await readRrdp(d.url)).objects.get(tal.rsyncUri), hash, `${what}: the RRDP snapshot holds it, the same bytes`)
}

t.test('ta.tal and ta-next.tal are served only once RRDP and rsync both hold the certificate', async (t) => {
  const d = await repoDaemon(t, { logLevel: 'info' })
  const current = await firstTal(d, 'ta/ta.tal')
  t.comment(`ta.tal: ${current.refused} answer(s) 404 before it was served`)
  await resolves(t, d, current, 'ta.tal')

  t.equal((await get(d, 'ta/ta-next.tal')).status, 404, 'no successor before init')
  await d.cli(['ta', 'keyroll', 'init'])
  const next = await firstTal(d, 'ta/ta-next.tal')
  t.comment(`ta-next.tal: ${next.refused} answer(s) 404 before it was served`)
  t.match(next.rsyncUri, /\/ta-[0-9A-F]{40}\.cer$/, 'the successor is ta-<KEYID>.cer')
  await resolves(t, d, next, 'ta-next.tal')
})
