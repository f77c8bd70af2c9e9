import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { z } from 'zod';
import type { DiskState } from '../domain/diskState.ts';
import type { Heartbeat } from '../state/kvKeys.ts';

/**
 * The running daemon's heartbeat and what it knows of its disk, in `<data dir>/heartbeat.json`,
 * beside state.db: what `status` and `health` read when state.db cannot be written (a full disk
 * stops the heartbeat in state.db, and without this a running daemon would read as stopped).
 *
 * The file has a fixed size (FILE_BYTES), made when the daemon starts, and every beat rewrites it
 * in place: no write after the first needs a new block of the disk, so it goes on while the disk
 * is full (on file systems that overwrite in place: ext4, xfs, tmpfs, overlayfs over them; a
 * copy-on-write one, btrfs or zfs, may refuse it too, and `health --live` then falls back on the
 * writer lock). A reader that catches a write half done reads again.
 */

/** The file's size: one JSON object, padded with spaces, ending with a newline. */
const FILE_BYTES = 1024;

/** What the file holds. */
export interface LiveBeat extends Heartbeat {
  readonly disk: DiskState;
}

const liveBeat = z.object({
  at: z.number(),
  pid: z.number(),
  startedAt: z.number(),
  disk: z.object({
    path: z.string(),
    freeBytes: z.number().nullable(),
    full: z.boolean(),
    since: z.number().nullable(),
  }),
});

/** The daemon's side: the file, open for rewriting in place. */
export class HeartbeatFile {
  readonly #fd: number;

  private constructor(fd: number) {
    this.#fd = fd;
  }

  /**
   * Makes the file at its full size (flushed, so that its blocks are the disk's), or opens the
   * one an earlier run left. Throws as the file system does (ENOSPC on a full disk).
   */
  static open(path: string): HeartbeatFile {
    const fd = openSync(path, 'w', 0o644);
    try {
      writeSync(fd, Buffer.alloc(FILE_BYTES, ' '), 0, FILE_BYTES, 0);
      fsyncSync(fd);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    return new HeartbeatFile(fd);
  }

  /** Rewrites the file in place; a beat too large for it (a very long path) is cut to its disk's path. */
  write(beat: LiveBeat): void {
    let text = JSON.stringify(beat);
    if (Buffer.byteLength(text) > FILE_BYTES - 1) {
      const path = beat.disk.path.slice(0, 200);
      text = JSON.stringify({ ...beat, disk: { ...beat.disk, path } });
    }
    const bytes = Buffer.alloc(FILE_BYTES, ' ');
    bytes.write(text, 0, 'utf8');
    bytes[FILE_BYTES - 1] = 0x0a;
    writeSync(this.#fd, bytes, 0, FILE_BYTES, 0);
  }

  close(): void {
    closeSync(this.#fd);
  }
}

/** The beat in the file, or undefined when there is none (or it cannot be read). */
export function readHeartbeatFile(path: string): LiveBeat | undefined {
  // A write caught half way reads as JSON cut short: read again, twice at most.
  for (let i = 0; i < 3; i++) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8').trim();
    } catch {
      return undefined;
    }
    if (text === '') return undefined;
    try {
      const parsed = liveBeat.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : undefined;
    } catch {
      // Torn: read again.
    }
  }
  return undefined;
}
