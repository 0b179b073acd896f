/**
 * The svc version, read once from package.json: one level above src/ and dist/, two above dist-bench/src/ (the
 * benchmarks' build).
 */
import { existsSync, readFileSync } from 'node:fs'

const file = ['../package.json', '../../package.json'].map((p) => new URL(p, import.meta.url)).find((u) => existsSync(u))
if (!file) throw new Error('package.json not found above the svc sources')

export const VERSION: string = (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version
