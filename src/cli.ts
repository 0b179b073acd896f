#!/usr/bin/env node
/** svcc: the command-line client's entry. Parses argv, runs one command, prints its report, exits with a code. */
import { readFileSync } from 'node:fs'
import { runCli } from './cli/program.js'
import { systemClock } from './clock.js'

runCli(process.argv.slice(2), {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  env: process.env,
  readStdin: () => readFileSync(0, 'utf8'),
  clock: systemClock,
}).then(
  (code) => {
    process.exitCode = code
  },
  (e) => {
    process.stderr.write(`svcc: unexpected failure: ${(e as Error)?.stack ?? String(e)}\n`)
    process.exitCode = 1
  },
)
