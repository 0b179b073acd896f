/**
 * Child processes that must not outlive svcd: with util-linux `setpriv --pdeathsig`, the kernel sends the child a
 * signal when svcd dies, even by kill -9, so that an rsync daemon does not go on holding its port and an rsync client
 * does not go on writing into the data directory (used by rsync-daemon.ts and the relying-party view's rsync client).
 * Without setpriv the command runs as it is.
 */
import { spawnSync } from 'node:child_process'

let hasSetpriv: boolean | undefined

/** The command and arguments that run `cmd args` with SIGTERM (or `signal`) sent to it when svcd dies. */
export function diesWithSvcd(cmd: string, args: readonly string[], signal = 'TERM'): [string, string[]] {
  hasSetpriv ??= !spawnSync('setpriv', ['--version'], { stdio: 'ignore' }).error
  return hasSetpriv ? ['setpriv', ['--pdeathsig', signal, '--', cmd, ...args]] : [cmd, [...args]]
}
