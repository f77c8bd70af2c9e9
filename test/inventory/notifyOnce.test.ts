/**
 * A file's notification is written with its ledger row's final status (#30, notifications): not
 * before (a crash before the move tells nothing yet), once when the row is finished, whether by
 * the pass that moved it or by the recovery after a crash between the move and the row.
 */
import { rename } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recoverInbox } from '../../src/inventory/ingest/recover.ts';
import { InboxLedger } from '../../src/state/inbox/inboxLedger.ts';
import { enableNotifications, NotifyOutbox } from '../../src/state/notify/notifyOutbox.ts';
import { type IngestEnv, makeIngestEnv } from './helpers.ts';

let env: IngestEnv;
beforeEach(() => {
  env = makeIngestEnv('notify-once');
  enableNotifications(env.db);
});
afterEach(async () => {
  await env.cleanup();
});

const told = () =>
  new NotifyOutbox(env.db).heads().map((r) => {
    const b = JSON.parse(r.body);
    return [b.event, b.details.file, b.details.outcome];
  });
const queued = () => new NotifyOutbox(env.db).depth().queued;
const crash = () => {
  throw new Error('killed');
};

describe('a file’s notification and its ledger row', () => {
  it('a crash before the move tells nothing; the pass that finishes it tells once', async () => {
    env.drop('unknown.csv', 'colour,size\nred,XL\n');
    await expect(env.process('unknown.csv', { hooks: { rename: crash } })).rejects.toThrow(
      'killed',
    );
    expect(new InboxLedger(env.db).committed()).toHaveLength(1);
    expect(queued()).toBe(0);

    const out = await env.process('unknown.csv');
    expect(out.status).toBe('failed');
    expect(told()).toEqual([['file.failed', 'unknown.csv', 'failed']]);
    await recoverInbox({ db: env.db, log: env.capture.log, dataDir: env.dataDir });
    expect(queued()).toBe(1);
  });

  it('a crash between the move and the row: the recovery finishes the row and tells once', async () => {
    env.drop('some-bad.csv', 'sku,stock_quantity\nA,1\nB,abc\n');
    const movedThenKilled = async (from: string, to: string) => {
      await rename(from, to);
      throw new Error('killed');
    };
    await expect(
      env.process('some-bad.csv', { hooks: { rename: movedThenKilled } }),
    ).rejects.toThrow('killed');
    expect(env.list('inbox')).toEqual([]);
    expect(queued()).toBe(0);

    await recoverInbox({ db: env.db, log: env.capture.log, dataDir: env.dataDir });
    expect(told()).toEqual([['file.rows_rejected', 'some-bad.csv', 'processed']]);
    await recoverInbox({ db: env.db, log: env.capture.log, dataDir: env.dataDir });
    expect(queued()).toBe(1);
    const body = JSON.parse(new NotifyOutbox(env.db).heads()[0]!.body);
    expect(body.details).toMatchObject({ rowsRead: 2, rowsRejected: 1 });
    expect(body.details.report).toMatch(/^processed\/.*some-bad\.csv\.report\.json$/);
  });
});
