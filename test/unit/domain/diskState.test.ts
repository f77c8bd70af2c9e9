import { describe, expect, it } from 'vitest';
import {
  bytesText,
  DISK_ERROR_QUIET_MS,
  DISK_FULL_BELOW_BYTES,
  type DiskLook,
  type DiskState,
  decideDisk,
} from '../../../src/domain/diskState.ts';

const MiB = 1024 * 1024;
const now = 1_800_000_000_000;

const look = (over: Partial<DiskLook> = {}): DiskLook => ({
  now,
  dataDir: '/data',
  spaces: [{ path: '/data', freeBytes: 500 * MiB, freeInodes: 1000 }],
  lastError: undefined,
  lastWriteOkAt: undefined,
  ...over,
});

describe('whether the disk is full', () => {
  it('is not, with room and no error', () => {
    expect(decideDisk(undefined, look())).toEqual({
      path: '/data',
      freeBytes: 500 * MiB,
      full: false,
      since: null,
    });
  });

  it('is, below the floor or without a free inode, naming the fullest watched path', () => {
    const spaces = [
      { path: '/data', freeBytes: 200 * MiB, freeInodes: 10 },
      { path: '/data/state.db', freeBytes: DISK_FULL_BELOW_BYTES - 1, freeInodes: 10 },
    ];
    expect(decideDisk(undefined, look({ spaces }))).toEqual({
      path: '/data/state.db',
      freeBytes: DISK_FULL_BELOW_BYTES - 1,
      full: true,
      since: now,
    });
    const noInode = [{ path: '/data', freeBytes: 200 * MiB, freeInodes: 0 }];
    expect(decideDisk(undefined, look({ spaces: noInode })).full).toBe(true);
    // btrfs counts no inodes (null): only the bytes tell.
    const btrfs = [{ path: '/data', freeBytes: 200 * MiB, freeInodes: null }];
    expect(decideDisk(undefined, look({ spaces: btrfs })).full).toBe(false);
  });

  it('is, after a disk-full error, until a write succeeded and the errors have been quiet a while', () => {
    const error = { at: now, path: undefined };
    let state: DiskState = decideDisk(undefined, look({ lastError: error }));
    expect(state).toMatchObject({ full: true, path: '/data', since: now });
    // A write went through at once, but the error is recent: one large write may still fail.
    state = decideDisk(
      state,
      look({ now: now + 10_000, lastError: error, lastWriteOkAt: now + 5 }),
    );
    expect(state).toMatchObject({ full: true, since: now });
    // Quiet long enough, but no write has gone through since: still full.
    const later = now + DISK_ERROR_QUIET_MS + 1;
    state = decideDisk(state, look({ now: later, lastError: error, lastWriteOkAt: now - 1 }));
    expect(state.full).toBe(true);
    state = decideDisk(state, look({ now: later, lastError: error, lastWriteOkAt: now + 5 }));
    expect(state).toEqual({ path: '/data', freeBytes: 500 * MiB, full: false, since: null });
  });

  it('says free space as a person reads it', () => {
    expect(bytesText(0)).toBe('0 bytes');
    expect(bytesText(1536)).toBe('1.5 KiB');
    expect(bytesText(12 * MiB)).toBe('12 MiB');
    expect(bytesText(null)).toBe('an unknown amount');
  });
});
