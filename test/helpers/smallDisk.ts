import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real small file system for the full-disk tests: a tmpfs mounted on a folder (the suite runs
 * as root here and in CI), filled with a file until the kernel says ENOSPC, then freed by
 * deleting it. Where mounting is not possible (not root, no CAP_SYS_ADMIN in a container), the
 * tests that need one are skipped, saying why (SMALL_DISK_SKIPPED).
 */
export interface SmallDisk {
  /** The mounted folder. */
  readonly dir: string;
  /** Fills it to the last byte (a file `filler.bin` in `dir`); returns the bytes written. */
  fill(): number;
  /** Deletes the filler: the space is back. */
  free(): void;
  /** Bytes free now. */
  freeBytes(): number;
  /** Unmounts it (lazily: a file still open in a stopped thread does not keep it) and removes the folder. */
  unmount(): void;
}

const FILLER = 'filler.bin';

/** Mounts a tmpfs of `bytes` on `dir` (an empty folder that exists). Throws when it cannot. */
export function mountSmallDisk(dir: string, bytes: number): SmallDisk {
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0755`, 'tmpfs', dir], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`cannot mount a tmpfs on ${dir}: ${r.stderr || r.error}`);
  const filler = join(dir, FILLER);
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      let written = 0;
      try {
        // Large pieces first, then smaller ones: every last page is taken.
        for (const size of [1 << 20, 1 << 16, 4096, 512, 1]) {
          const chunk = Buffer.alloc(size, 0x78);
          for (;;) {
            try {
              written += writeSync(fd, chunk);
            } catch (err) {
              if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
              break;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
      return written;
    },
    free() {
      rmSync(filler, { force: true });
    },
    freeBytes() {
      const s = statfsSync(dir);
      return s.bavail * s.bsize;
    },
    unmount() {
      spawnSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether this machine lets the tests mount a tmpfs (tried once, on a folder of its own). */
function probe(): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-mount-probe-'));
  try {
    mountSmallDisk(dir, 1 << 20).unmount();
    return undefined;
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return (err as Error).message;
  }
}

const mountProblem = probe();

/** True when a tmpfs can be mounted here. */
export const canMountSmallDisk = mountProblem === undefined;

/** The suffix of a test's name when it is skipped: why. */
export const SMALL_DISK_SKIPPED =
  mountProblem === undefined
    ? ''
    : ` (SKIPPED: mounting a tmpfs is not possible here — run the suite as root, or with CAP_SYS_ADMIN in a container: ${mountProblem.trim()})`;
