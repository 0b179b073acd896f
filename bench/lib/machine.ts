/**
 * The machine's own limits, measured in the same run as the figures compared with them (design.md §5): RSA-2048 key
 * generation at concurrency = cores, a durable small write (write + fsync + rename + directory fsync, what a
 * notification or an SQLite commit costs), and sequential durable write throughput (what a snapshot costs).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { open, rename } from 'node:fs/promises'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { generateRsaKeyPair } from '../../src/crypto/key-pool.js'
import { median } from './report.js'

export const CORES = availableParallelism()

/** Raw `crypto.generateKeyPair` (RSA-2048) with `concurrency` in flight: keys per second over `n` keys. */
export async function keygenRate(n = 24, concurrency = CORES): Promise<number> {
  return (await keygen(n, concurrency)).rate
}

/**
 * Raw key generation: keys per second (wall clock) and CPU seconds per key (all threads of this process). The CPU
 * cost does not depend on what else the machine runs; the wall-clock rate does (other processes take cores).
 */
export async function keygen(n = 24, concurrency = CORES): Promise<{ rate: number; cpuPerKey: number }> {
  let started = 0
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const worker = async () => {
    while (started < n) {
      started++
      await generateRsaKeyPair()
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const wall = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  return { rate: (n * 1000) / wall, cpuPerKey: (cpu.user + cpu.system) / 1e6 / n }
}

async function durableWrite(path: string, data: Buffer): Promise<void> {
  const fh = await open(path, 'w', 0o644)
  try {
    await fh.write(data)
    await fh.sync()
  } finally {
    await fh.close()
  }
}

async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r')
  try {
    await fh.sync()
  } finally {
    await fh.close()
  }
}

/**
 * Median milliseconds of one durable small-file replacement (4 KiB: write, fsync, rename, fsync the directory) and
 * of one 4 KiB write + fsync alone; `dir` should be on the file system the data dir uses.
 */
export async function fsyncLatency(dir = tmpdir(), n = 60): Promise<{ replaceMs: number; fsyncMs: number }> {
  const d = mkdtempSync(join(dir, 'svc-bench-fsync-'))
  try {
    const data = Buffer.alloc(4096, 7)
    const replace: number[] = []
    const fsync: number[] = []
    for (let i = 0; i < n; i++) {
      let t0 = performance.now()
      await durableWrite(join(d, 'a.tmp'), data)
      fsync.push(performance.now() - t0)
      t0 = performance.now()
      await durableWrite(join(d, 'n.tmp'), data)
      await rename(join(d, 'n.tmp'), join(d, 'n.xml'))
      await fsyncDir(d)
      replace.push(performance.now() - t0)
    }
    return { replaceMs: median(replace), fsyncMs: median(fsync) }
  } finally {
    rmSync(d, { recursive: true, force: true })
  }
}

/** Sequential durable write throughput in bytes/s: `mib` MiB in 4 MiB chunks, then fsync (best of 2). */
export async function diskWriteRate(dir = tmpdir(), mib = 128): Promise<number> {
  const d = mkdtempSync(join(dir, 'svc-bench-disk-'))
  try {
    const chunk = Buffer.alloc(4 * 1024 * 1024, 0x41)
    let best = 0
    for (let round = 0; round < 2; round++) {
      const t0 = performance.now()
      const fh = await open(join(d, `big${round}`), 'w')
      try {
        for (let i = 0; i < mib / 4; i++) await fh.write(chunk)
        await fh.sync()
      } finally {
        await fh.close()
      }
      best = Math.max(best, (mib * 1024 * 1024 * 1000) / (performance.now() - t0))
      rmSync(join(d, `big${round}`))
    }
    return best
  } finally {
    rmSync(d, { recursive: true, force: true })
  }
}

/**
 * Writing `bytes` to a new file in `dir` (4 MiB writes) and then fsyncing it, timed apart (ms): the machine's own
 * cost of a snapshot of that size, measured beside it in the same run (issue 28: publish → notification against it).
 */
export async function writeFsync(dir: string, bytes: number): Promise<{ writeMs: number; fsyncMs: number; totalMs: number }> {
  const d = mkdtempSync(join(dir, 'svc-bench-wf-'))
  try {
    const chunk = Buffer.alloc(4 * 1024 * 1024, 0x41)
    const fh = await open(join(d, 'big'), 'w')
    const t0 = performance.now()
    let t1: number
    try {
      for (let left = bytes; left > 0; left -= chunk.length) await fh.write(chunk, 0, Math.min(left, chunk.length))
      t1 = performance.now()
      await fh.sync()
    } finally {
      await fh.close()
    }
    const t2 = performance.now()
    return { writeMs: t1 - t0, fsyncMs: t2 - t1, totalMs: t2 - t0 }
  } finally {
    rmSync(d, { recursive: true, force: true })
  }
}
