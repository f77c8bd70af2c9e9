import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InboxLedger } from '../../src/state/inbox/inboxLedger.ts';
import { type IngestEnv, makeIngestEnv } from './helpers.ts';

let env: IngestEnv;
beforeEach(() => {
  env = makeIngestEnv('rewritten');
});
afterEach(async () => {
  await env.cleanup();
});

describe('a file written again between its commit and its move (#13 point 6)', () => {
  it('stays in inbox/ and its new content is read on the next pass', async () => {
    const path = env.drop('stock.csv', 'sku,stock_quantity\nX,5\n');
    const first = await env.process('stock.csv', {
      hooks: {
        // The ERP writes the file again, in place (same inode), right after the commit.
        afterCommit: () => writeFileSync(path, 'sku,stock_quantity\nX,9\nY,2\n'),
      },
    });
    expect(env.capture.events('file.rewritten')).toMatchObject([
      { level: 'warn', file: 'stock.csv' },
    ]);
    expect(env.list('inbox')).toEqual(['stock.csv']);
    expect(readFileSync(path, 'utf8')).toBe('sku,stock_quantity\nX,9\nY,2\n');
    // What was read (X=5) is applied and its row finished; the new content is not yet read.
    expect(env.desired().map((r) => [r.sku, r.quantity])).toEqual([['X', 5]]);
    expect(new InboxLedger(env.db).committed()).toEqual([]);
    expect(env.list('processed')).not.toContain(env.report(first).storedAs);

    const second = await env.process('stock.csv');
    expect(second.status).toBe('processed');
    expect(env.list('inbox')).toEqual([]);
    expect(env.list('processed')).toContain(env.report(second).storedAs);
    expect(env.desired().map((r) => [r.sku, r.quantity])).toEqual([
      ['X', 9],
      ['Y', 2],
    ]);
  });

  it('is caught by its change time when the size and the modification time are kept', async () => {
    const path = env.drop('stock.csv', 'sku,stock_quantity\nX,5\n');
    const written = Math.floor(Date.now() / 1000) - 60; // whole seconds: set back exactly
    utimesSync(path, written, written);
    const before = statSync(path);
    await env.process('stock.csv', {
      hooks: {
        afterCommit: () => {
          writeFileSync(path, 'sku,stock_quantity\nX,8\n'); // same size
          utimesSync(path, written, written); // the old mtime set back
        },
      },
    });
    expect(statSync(path).mtimeMs).toBe(before.mtimeMs);
    expect(statSync(path).size).toBe(before.size);
    expect(env.list('inbox')).toEqual(['stock.csv']);
    await env.process('stock.csv');
    expect(env.desired().map((r) => [r.sku, r.quantity])).toEqual([['X', 8]]);
    expect(env.list('inbox')).toEqual([]);
  });

  it('moves a file that was only read (nothing written since)', async () => {
    env.drop('stock.csv', 'sku,stock_quantity\nX,5\n');
    const out = await env.process('stock.csv', {
      hooks: { afterCommit: () => readFileSync(join(env.paths.inbox, 'stock.csv')) },
    });
    expect(out.status).toBe('processed');
    expect(env.list('inbox')).toEqual([]);
    expect(env.capture.events('file.rewritten')).toEqual([]);
  });
});
