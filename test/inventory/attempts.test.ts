import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countsAgainstFile } from '../../src/failures/failurePolicy.ts';
import { ingestInboxFile, MAX_FILE_ATTEMPTS } from '../../src/inventory/ingest/attempts.ts';
import { FileChangedError } from '../../src/inventory/ingest/process.ts';
import type { DcDirectory } from '../../src/inventory/validate/dcDirectory.ts';
import { openStateDb } from '../../src/state/db.ts';
import { type IngestEnv, makeIngestEnv } from './helpers.ts';

let env: IngestEnv;
beforeEach(() => {
  env = makeIngestEnv('attempts');
});
afterEach(async () => {
  await env.cleanup();
});

/** A DC list whose lookups fail with a plain bug (not an I/O error) while `broken` is set. */
function brokenDirectory(inner: DcDirectory, state: { broken: boolean }): DcDirectory {
  return {
    status(code) {
      if (state.broken) throw new TypeError(`cannot read the status of ${code}`);
      return inner.status(code);
    },
    refresh: () => inner.refresh(),
    get canRefresh() {
      return inner.canRefresh;
    },
    get size() {
      return inner.size;
    },
  };
}

const attemptsRows = (e: IngestEnv) =>
  e.db.prepare('SELECT name, attempts, last_error FROM inbox_attempts').all();

describe('a file that fails with the same error every time (#13 point 1)', () => {
  it(`goes to failed/ at its ${MAX_FILE_ATTEMPTS}rd failed attempt, counted across restarts`, async () => {
    env.drop('dc.csv', 'distribution_centre_code,sku,stock_quantity\nDC1,A,1\nDC1,B,2\n');
    const state = { broken: true };
    const path = `${env.paths.inbox}/dc.csv`;

    for (let attempt = 1; attempt < MAX_FILE_ATTEMPTS; attempt++) {
      // Each attempt on a fresh connection to state.db, as after a restart.
      const db = openStateDb(env.paths.stateDb);
      try {
        const deps = { ...env.deps, db, dcDirectory: brokenDirectory(env.dcDirectory, state) };
        await expect(ingestInboxFile(path, deps)).rejects.toThrow(TypeError);
      } finally {
        db.close();
      }
      expect(env.list('inbox')).toEqual(['dc.csv']);
      expect(attemptsRows(env)).toEqual([
        {
          name: 'dc.csv',
          attempts: attempt,
          last_error: 'TypeError: cannot read the status of DC1',
        },
      ]);
    }
    const deps = { ...env.deps, dcDirectory: brokenDirectory(env.dcDirectory, state) };
    const out = await ingestInboxFile(path, deps);
    expect(out.status).toBe('failed');
    expect(out.reason).toBe(
      '3 attempts at this file failed with an error that is not an I/O error; the last: TypeError: cannot read the status of DC1',
    );
    expect(env.list('inbox')).toEqual([]);
    expect(env.list('failed')).toHaveLength(2); // the file and its report
    expect(env.report(out)).toMatchObject({ outcome: 'failed', reason: out.reason });
    expect(env.desired()).toEqual([]);
    expect(attemptsRows(env)).toEqual([]);
    const warned = env.capture.events('file.attempt_failed');
    expect(warned.map((l) => l.attempt)).toEqual([1, 2, 3]);
  });

  it('starts again from zero for a rewritten file, and forgets the count once the file is handled', async () => {
    const state = { broken: true };
    const deps = { ...env.deps, dcDirectory: brokenDirectory(env.dcDirectory, state) };
    const path = env.drop('dc.csv', 'distribution_centre_code,sku,stock_quantity\nDC1,A,1\n');
    await expect(ingestInboxFile(path, deps)).rejects.toThrow(TypeError);
    await expect(ingestInboxFile(path, deps)).rejects.toThrow(TypeError);
    // The ERP writes the file again: another file, its own count.
    env.drop('dc.csv', 'distribution_centre_code,sku,stock_quantity\nDC1,A,17\n');
    await expect(ingestInboxFile(path, deps)).rejects.toThrow(TypeError);
    expect(
      (attemptsRows(env) as Array<{ attempts: number }>).map((r) => r.attempts).sort(),
    ).toEqual([1, 2]);
    state.broken = false;
    const out = await ingestInboxFile(path, deps);
    expect(out.status).toBe('processed');
    expect(env.desired()).toMatchObject([{ kind: 'dc', dc: 'DC1', sku: 'A', quantity: 17 }]);
    expect(attemptsRows(env)).toEqual([]);
  });

  it('never counts I/O errors, a file changing while read, or a DC list that cannot be fetched', async () => {
    env.portal.down = true;
    const path = env.drop('dc.csv', 'distribution_centre_code,sku,stock_quantity\nNEWDC,A,1\n');
    for (let i = 0; i < MAX_FILE_ATTEMPTS + 2; i++) {
      await expect(ingestInboxFile(path, env.deps)).rejects.toThrow(/could not be refreshed/);
    }
    expect(env.list('inbox')).toEqual(['dc.csv']);
    expect(attemptsRows(env)).toEqual([]);

    const io = Object.assign(new Error('EIO: i/o error, read'), {
      errno: -5,
      code: 'EIO',
      syscall: 'read',
    });
    expect(countsAgainstFile(io)).toBe(false);
    expect(countsAgainstFile(new FileChangedError('x.csv'))).toBe(false);
    expect(countsAgainstFile(Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' }))).toBe(
      false,
    );
    expect(countsAgainstFile(new RangeError('Invalid string length'))).toBe(true);
    expect(countsAgainstFile(Object.assign(new Error('x'), { code: 'SQLITE_CONSTRAINT' }))).toBe(
      true,
    );
  });
});
