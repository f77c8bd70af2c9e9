/**
 * An inbox file read while the disk fills up (#40 point 2), on a real small disk (a tmpfs): its
 * scratch database is not left behind empty, the attempt counted ahead is taken back once space
 * returns (a full disk is no crash and no fault of the file), and the file waits in inbox/ until
 * it can be applied — three full disks in a row never send it to failed/.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isDiskFull } from '../../src/failures/failurePolicy.ts';
import {
  CRASHED_WHILE_READING,
  ingestInboxFile,
  MAX_FILE_ATTEMPTS,
} from '../../src/inventory/ingest/attempts.ts';
import {
  canMountSmallDisk,
  mountSmallDisk,
  SMALL_DISK_SKIPPED,
  type SmallDisk,
} from '../helpers/smallDisk.ts';
import { type IngestEnv, makeIngestEnv } from '../inventory/helpers.ts';

const MiB = 1024 * 1024;

describe.skipIf(!canMountSmallDisk)(`an inbox file on a full disk${SMALL_DISK_SKIPPED}`, () => {
  let env: IngestEnv;
  let disk: SmallDisk;
  beforeEach(() => {
    env = makeIngestEnv('disk-ingest', {
      prepare: (dir) => {
        disk = mountSmallDisk(dir, 8 * MiB);
      },
    });
  });
  afterEach(async () => {
    env.db.close();
    disk.unmount();
    await env.cleanup();
  });

  const attemptRows = () =>
    env.db
      .prepare("SELECT name, attempts, last_error FROM inbox_attempts WHERE name = 'stock.csv'")
      .all();
  const scratchFiles = () => {
    const dir = join(env.dataDir, 'staging');
    return existsSync(dir) ? readdirSync(dir) : [];
  };

  it(`leaves no scratch file, takes its attempt back once space returns, and is applied after ${MAX_FILE_ATTEMPTS} full disks`, async () => {
    const path = env.drop(
      'stock.csv',
      'distribution_centre_code,sku,stock_quantity\nDC1,A,1\nDC1,B,2\nDC2,C,3\n',
    );
    await env.dcDirectory.refresh();
    for (let episode = 1; episode <= MAX_FILE_ATTEMPTS; episode++) {
      // The disk fills once the attempt is counted ahead, before the file's rows are staged (when
      // the stock rules' locations are asked for); state.db's log is cut to nothing beforehand,
      // so that no later write of state.db finds room left in it.
      env.db.pragma('wal_checkpoint(TRUNCATE)');
      const deps = {
        ...env.deps,
        locations: () => {
          disk.fill();
          return {};
        },
      };
      const failed = await ingestInboxFile(path, deps).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(isDiskFull(failed), String(failed)).toBe(true);
      // Nothing left behind: no empty scratch database, the file still in inbox/.
      expect(scratchFiles()).toEqual([]);
      expect(env.list('inbox')).toEqual(['stock.csv']);
      // The attempt counted ahead stays as it was written until state.db can take it back.
      expect(attemptRows()).toEqual([
        { name: 'stock.csv', attempts: 1, last_error: CRASHED_WHILE_READING },
      ]);
      disk.free();
    }

    // Space is back: the file is read as any other, never given up as a crash.
    const outcome = await ingestInboxFile(path, env.deps);
    expect(outcome.status).toBe('processed');
    expect(env.list('inbox')).toEqual([]);
    expect(env.desired().map((r) => `${r.dc}:${r.sku}=${r.quantity}`)).toEqual([
      'DC1:A=1',
      'DC1:B=2',
      'DC2:C=3',
    ]);
    expect(env.capture.events('file.reading_again')).toEqual([]);
    expect(attemptRows()).toEqual([]);
    expect(scratchFiles()).toEqual([]);
  });
});
