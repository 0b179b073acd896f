/** Reading RFC 8183 documents in the browser where the API wants JSON (a child request for "add child"). */

/** `<child_request child_handle="…"><child_bpki_ta>…</child_bpki_ta></child_request>` (RFC 8183 §5.2.1) as AddChild fields. */
export function readChildRequest(xml: string): { handle: string; idCert: string } {
  const doc = new DOMParser().parseFromString(xml, 'application/xml')
  const root = doc.documentElement
  if (doc.getElementsByTagName('parsererror').length > 0 || root.localName !== 'child_request') throw new Error('the file is not an RFC 8183 child request (<child_request>)')
  const ta = Array.from(root.children).find((e) => e.localName === 'child_bpki_ta')
  const handle = root.getAttribute('child_handle') ?? ''
  const idCert = (ta?.textContent ?? '').replace(/\s+/g, '')
  if (!handle || !idCert) throw new Error('the child request has no child_handle or no child_bpki_ta')
  return { handle, idCert }
}

/** The base64 DER of a file that is PEM (`-----BEGIN …`) or DER. */
export async function derBase64(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer())
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes)
  const pem = /-----BEGIN [^-]+-----([\s\S]*?)-----END [^-]+-----/.exec(text)
  if (pem) return pem[1].replace(/\s+/g, '')
  let s = ''
  for (const b of bytes) s += String.fromCharCode(b)
  return btoa(s)
}
