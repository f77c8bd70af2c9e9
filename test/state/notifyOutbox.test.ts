import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileNotification, type Notification } from '../../src/domain/notification.ts';
import { registerSecret } from '../../src/log/redact.ts';
import { verdictChange, watchVerdict } from '../../src/notifications/verdictWatch.ts';
import { openStateDb } from '../../src/state/db.ts';
import {
  disableNotifications,
  enableNotifications,
  enqueueNotification,
  NotifyOutbox,
} from '../../src/state/notify/notifyOutbox.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';

let box: Sandbox;
afterEach(async () => {
  await box.cleanup();
});

const t0 = 1_800_000_000_000;
const note = (event: Notification['event'], text: string, at = t0): Notification => ({
  event,
  at,
  text,
  details: { text },
});

function open(label: string) {
  box = makeSandbox(label);
  return openStateDb(join(box.dataDir, 'state.db'));
}

describe('the notification outbox in state.db', () => {
  it('writes nothing unless a delivery loop runs on the connection', () => {
    const db = open('outbox-off');
    expect(enqueueNotification(db, note('file.failed', 'a'))).toBeUndefined();
    enableNotifications(db);
    expect(enqueueNotification(db, note('file.failed', 'b'))).toMatch(/^[0-9a-f-]{36}$/);
    disableNotifications(db);
    expect(enqueueNotification(db, note('file.failed', 'c'))).toBeUndefined();
    expect(new NotifyOutbox(db).depth()).toEqual({ queued: 1, oldestAt: t0 });
  });

  it('stores a notification with its fact or not at all (the caller’s transaction)', () => {
    const db = open('outbox-tx');
    enableNotifications(db);
    db.exec('CREATE TABLE fact (x INTEGER)');
    const write = db.transaction((fail: boolean) => {
      db.prepare('INSERT INTO fact (x) VALUES (1)').run();
      enqueueNotification(db, note('file.held', 'held'));
      if (fail) throw new Error('the fact failed');
    });
    expect(() => write(true)).toThrow('the fact failed');
    expect(new NotifyOutbox(db).depth().queued).toBe(0);
    write(false);
    expect(new NotifyOutbox(db).depth().queued).toBe(1);
  });

  it('gives the oldest of each kind, one claim at a time across connections, and counts outcomes', () => {
    const db = open('outbox-heads');
    const other = openStateDb(join(box.dataDir, 'state.db'));
    enableNotifications(db);
    enqueueNotification(db, note('file.failed', 'f1'));
    enqueueNotification(db, note('file.held', 'h1', t0 + 1));
    enqueueNotification(db, note('file.failed', 'f2', t0 + 2));
    const outbox = new NotifyOutbox(db);
    const heads = outbox.heads();
    expect(heads.map((r) => [r.event, JSON.parse(r.body).text])).toEqual([
      ['file.failed', 'f1'],
      ['file.held', 'h1'],
    ]);
    const [f1, h1] = heads;
    // The body is fixed at enqueue: id, event, ISO time, text, details.
    expect(JSON.parse(f1!.body)).toEqual({
      id: f1!.uuid,
      event: 'file.failed',
      at: new Date(t0).toISOString(),
      text: 'f1',
      details: { text: 'f1' },
    });
    // Claimed by one connection, the other cannot take it.
    expect(new NotifyOutbox(other).claim(f1!, t0 + 15_000)).toBe(true);
    expect(outbox.claim(f1!, t0 + 15_000)).toBe(false);
    outbox.delivered(f1!);
    expect(outbox.head('file.failed')!.body).toContain('"f2"');
    outbox.attemptFailed(h1!, t0 + 60_000, 'HTTP 500');
    expect(outbox.head('file.held')).toMatchObject({
      attempts: 1,
      nextAt: t0 + 60_000,
      lastError: 'HTTP 500',
    });
    outbox.dropped(outbox.head('file.held')!);
    expect(outbox.heads().map((r) => r.event)).toEqual(['file.failed']);
    expect(outbox.totals()).toEqual([
      { event: 'file.failed', outcome: 'delivered', count: 1 },
      { event: 'file.held', outcome: 'dropped', count: 1 },
      { event: 'file.held', outcome: 'failed_attempts', count: 2 },
    ]);
    other.close();
  });

  it('never puts a registered secret into a body', () => {
    const db = open('outbox-secret');
    enableNotifications(db);
    registerSecret('s3cr3t-value-for-outbox');
    enqueueNotification(db, {
      event: 'rules.invalid',
      at: t0,
      text: 'problem near s3cr3t-value-for-outbox',
      details: { problem: 'x s3cr3t-value-for-outbox y', password: 'pw' },
    });
    const body = new NotifyOutbox(db).heads()[0]!.body;
    expect(body).not.toContain('s3cr3t-value-for-outbox');
    expect(JSON.parse(body).details.password).not.toBe('pw');
  });

  it('tells the verdict turning to "needs a person" and back, once each', () => {
    const db = open('outbox-verdict');
    enableNotifications(db);
    const person = { verdict: 'needs a person', reasons: ['the guard rails hold 1 stock file(s)'] };
    const healthy = { verdict: 'healthy', reasons: [] };
    expect(verdictChange(undefined, healthy, t0)).toBeUndefined();
    expect(watchVerdict(db, () => ({ verdict: 'degraded', reasons: ['x'] }), t0)).toBe(false);
    expect(watchVerdict(db, () => person, t0 + 1)).toBe(true);
    expect(watchVerdict(db, () => person, t0 + 2)).toBe(false);
    expect(watchVerdict(db, () => healthy, t0 + 3)).toBe(true);
    const bodies = [];
    const outbox = new NotifyOutbox(db);
    for (let r = outbox.head('status.verdict'); r; r = outbox.head('status.verdict')) {
      bodies.push(JSON.parse(r.body));
      outbox.delivered(r);
    }
    expect(bodies.map((b) => [b.details.needsPerson, b.text])).toEqual([
      [true, 'supplier-sync NEEDS A PERSON: the guard rails hold 1 stock file(s).'],
      [false, 'supplier-sync no longer needs a person: it is healthy now.'],
    ]);
  });
});

describe('file notifications', () => {
  const end = {
    file: 'stock.csv',
    storedAs: '20260101T000000Z-1-stock.csv',
    ledgerId: 1,
    kind: 'factory_stock',
    rowsRead: 10,
    rowsAccepted: 10,
    rowsRejected: 0,
    report: 'processed/20260101T000000Z-1-stock.csv.report.json',
  };
  it('tells failed, held and rows rejected; not a clean file or a duplicate', () => {
    expect(fileNotification({ ...end, outcome: 'processed' }, t0)).toBeUndefined();
    expect(fileNotification({ ...end, outcome: 'duplicate' }, t0)).toBeUndefined();
    expect(
      fileNotification({ ...end, outcome: 'processed', rowsAccepted: 8, rowsRejected: 2 }, t0),
    ).toMatchObject({
      event: 'file.rows_rejected',
      text: 'Inbox file `stock.csv` was processed with 2 of 10 row(s) rejected; see its report.',
    });
    expect(
      fileNotification({ ...end, outcome: 'failed', reason: 'no known header' }, t0),
    ).toMatchObject({
      event: 'file.failed',
      details: { reason: 'no known header' },
    });
    expect(
      fileNotification(
        { ...end, outcome: 'held', heldId: 4, reason: '55 of 60 keys zeroed', tripped: ['zero'] },
        t0,
      ),
    ).toMatchObject({
      event: 'file.held',
      text: 'Inbox file `stock.csv` is held by the guard rails (55 of 60 keys zeroed): release 4 or reject 4.',
      details: { heldId: 4, tripped: ['zero'] },
    });
  });
});
