/**
 * `svcc bgpsec …`: BGPsec router keys (RFC 8209; krill-reference.md §1.1 "BGPsec", krill:src/cli/options/bgpsec.rs):
 * list, add a router's PKCS#10 request (DER or PEM) for an AS, remove a key. The server checks the request and the
 * AS (ca-bgpsec-* labels) and issues the router certificate.
 */
import { readFileSync } from 'node:fs'
import { calls } from '../../client/calls.js'
import { parseAsn } from '../../resources/asn.js'
import { toBase64 } from '../../util/base64.js'
import { action, required, view, type CommandDef } from '../command.js'
import { UsageError } from '../report.js'

export const bgpsecCommands: CommandDef[] = [
  view(['bgpsec', 'list'], 'Show the BGPsec router keys', [], (ctx) => calls.caBgpSecList(ctx.ca()), (keys) => keys.map((k) => `AS${k.asn} ${k.key_identifier}`).join('\n')),
  action(['bgpsec', 'add'], "Add a router key: the CA issues a router certificate for the request's key (ECDSA P-256)", [
    required('--asn <asn>', 'the AS of the router, e.g. AS65000'),
    required('--csr <file>', "the router's PKCS#10 request, DER or PEM"),
  ], (ctx, opts) => {
    const asn = asnOption(opts.asn, '--asn')
    return calls.caBgpSecUpdate(ctx.ca(), { add: [{ asn, csr: readCsr(String(opts.csr)) }], remove: [] })
  }),
  action(['bgpsec', 'remove'], 'Remove a router key: its router certificate is withdrawn', [
    required('--asn <asn>', 'the AS of the router, e.g. AS65000'),
    required('--key <key id>', 'the key identifier, 40 hex digits (as `bgpsec list` shows it)'),
  ], (ctx, opts) => {
    const asn = asnOption(opts.asn, '--asn')
    const key = String(opts.key)
    if (!/^[0-9A-Fa-f]{40}$/.test(key)) throw new UsageError(`--key '${key}' is not a key identifier (40 hex digits)`)
    return calls.caBgpSecUpdate(ctx.ca(), { add: [], remove: [`ROUTER-${asn.toString(16).toUpperCase().padStart(8, '0')}-${key.toUpperCase()}`] })
  }),
]

function asnOption(v: unknown, flag: string): number {
  try {
    return parseAsn(String(v))
  } catch (e) {
    throw new UsageError(`${flag}: ${(e as Error).message}`)
  }
}

/** The request as base64 DER: a PEM file's body, or the DER bytes of the file. */
function readCsr(file: string): string {
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch (e) {
    throw new UsageError(`cannot read --csr file '${file}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
  const text = bytes.toString('latin1')
  const pem = /-----BEGIN (?:NEW )?CERTIFICATE REQUEST-----([A-Za-z0-9+/=\s]+)-----END (?:NEW )?CERTIFICATE REQUEST-----/.exec(text)
  if (pem) return pem[1]!.replace(/\s+/g, '')
  if (text.trimStart().startsWith('-----BEGIN')) throw new UsageError(`--csr file '${file}' is PEM but not a CERTIFICATE REQUEST`)
  return toBase64(new Uint8Array(bytes))
}
