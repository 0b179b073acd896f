/** The openssl command line as an independent oracle for DER we build (x509, crl, cms, asn1parse, verify). */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface OpensslResult {
  code: number
  stdout: string
  stderr: string
}

/** Run openssl with `files` written to a temporary directory first; `{dir}` in an argument is that directory. */
export async function openssl(args: string[], files: Record<string, Uint8Array | string> = {}): Promise<OpensslResult> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-openssl-'))
  try {
    for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes)
    const real = args.map((a) => a.replace('{dir}', dir))
    return await run('openssl', real, { maxBuffer: 16 * 1024 * 1024 }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }),
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** PEM of a DER certificate or CRL. */
export function pem(der: Uint8Array, label = 'CERTIFICATE'): string {
  const b64 = Buffer.from(der).toString('base64').match(/.{1,64}/g)!.join('\n')
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`
}
