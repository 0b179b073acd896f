/**
 * `svcc rsc sign`: a signed checklist (RFC 9323) of local files. svcc hashes the files (SHA-256) and sends only the
 * names and digests; the CA signs with the resources given (default: all its current key holds) and svcc writes the
 * RSC (DER) to --out. `svcc inspect X.sig --dir <folder>` checks files against it later. The server checks names,
 * digests and resources (ca-rsc-* labels, exit 1); an unreadable file or --out is a usage error (exit 2).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { basename } from 'node:path'
import { calls } from '../../client/calls.js'
import { fromBase64 } from '../../util/base64.js'
import { option, required, resourceOptions, type CommandDef } from '../command.js'
import { UsageError } from '../report.js'
import { sha256Hex } from '../../crypto/digest.js'

export const rscCommands: CommandDef[] = [
  {
    path: ['rsc', 'sign'],
    summary: 'Sign a checklist of files (RFC 9323 RSC) under the CA; only their SHA-256 digests are sent',
    options: [
      required('--file <files...>', 'a file to list (repeatable); its name in the checklist is the base name'),
      ...resourceOptions(' of the checklist', '"AS65000"', '"10.0.0.0/24"', '"2001:db8::/48"'),
      option('--validity <days>', "days the checklist is valid (default 365, never beyond the CA's certificate)"),
      required('--out <file>', 'where to write the signed checklist (DER), e.g. files.sig'),
    ],
    async run(ctx, opts) {
      const ca = ctx.ca()
      const paths = ([] as unknown[]).concat(opts.file ?? []).map(String)
      const files = paths.map((p) => ({ name: basename(p), sha256: sha256File(p) }))
      const given = { asn: opts.asn, ipv4: opts.ipv4, ipv6: opts.ipv6 }
      const resources = Object.values(given).some((v) => v !== undefined) ? { asn: text(given.asn), ipv4: text(given.ipv4), ipv6: text(given.ipv6) } : undefined
      const validity = opts.validity === undefined ? undefined : days(String(opts.validity))
      const signed = await ctx.send(calls.caRscSign(ca, { files, ...(resources ? { resources } : {}), ...(validity !== undefined ? { validity_days: validity } : {}) }))
      const out = String(opts.out)
      try {
        writeFileSync(out, fromBase64(signed.rsc))
      } catch (e) {
        throw new UsageError(`cannot write --out file '${out}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
      }
      const res = [signed.resources.asn, signed.resources.ipv4, signed.resources.ipv6].filter((r) => r !== '').join(', ')
      return { json: signed, text: `Signed a checklist of ${files.length} file${files.length === 1 ? '' : 's'} with ${res}, valid until ${signed.not_after}: ${out}` }
    },
  },
]

function text(v: unknown): string {
  return v === undefined ? '' : String(v)
}

function days(v: string): number {
  if (!/^[0-9]{1,5}$/.test(v)) throw new UsageError(`--validity '${v}' is not a number of days`)
  return Number(v)
}

/** The SHA-256 of a file in hex; a file that cannot be read is a usage error. */
function sha256File(path: string): string {
  let bytes: Buffer
  try {
    bytes = readFileSync(path)
  } catch (e) {
    throw new UsageError(`cannot read --file '${path}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
  return sha256Hex(bytes)
}
