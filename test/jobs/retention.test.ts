/**
 * Retention (#13 point 7): files in processed/ and failed/ older than RETENTION_DAYS go with
 * their reports, and so do finished rows of inbox_files, shipments and shipment_confirmations —
 * but never a row still needed: pending or failed work, an order not confirmed, the newest
 * applied file of each kind (duplicate detection), the file a key's desired quantity still comes
 * from. Real files through processInboxFile, a real state.db, a clock moved by hand.
 */
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/domain/clock.ts';
import { pruneHandledFiles } from '../../src/inventory/inbox/fileRetention.ts';
import { createRetention } from '../../src/retention/index.ts';
import { InboxAttempts } from '../../src/state/inbox/inboxAttempts.ts';
import { KeyValueStore } from '../../src/state/kv.ts';
import { Catalogue } from '../../src/state/products/catalogueStore.ts';
import { ProductRequests } from '../../src/state/products/productRequests.ts';
import { NO_ROWS_PRUNED } from '../../src/state/rowRetention.ts';
import { ConfirmationSends } from '../../src/state/shipments/confirmationSends.ts';
import { ShipmentStore } from '../../src/state/shipments/shipmentStore.ts';
import { type IngestEnv, makeIngestEnv } from '../inventory/helpers.ts';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1, 9, 0, 0);

let env: IngestEnv;
let t = T0;
const clock: Clock = { now: () => t, sleep: async () => {} };
beforeEach(() => {
  env = makeIngestEnv('retention');
  t = T0;
});
afterEach(async () => {
  await env.cleanup();
});

const confirmationsCsv = (rows: string[]) =>
  `order_number,carrier,tracking_number\n${rows.join('\n')}\n`;

/** Processes a file at the clock's time; returns the ledger id. */
async function ingest(name: string, content: string): Promise<number> {
  env.drop(name, content);
  const outcome = await env.process(name, { clock });
  if (outcome.ledgerId === undefined) throw new Error(`${name}: ${outcome.status}`);
  return outcome.ledgerId;
}

const ids = (sql: string) =>
  (env.db.prepare(sql).all() as Array<{ v: string | number }>).map((r) => r.v);
const ledgerIds = () => ids('SELECT id AS v FROM inbox_files ORDER BY id');
const shipmentOrders = () => ids('SELECT order_number AS v FROM shipments ORDER BY order_number');
const confirmationRows = () =>
  ids(
    "SELECT order_number || ':' || status AS v FROM shipment_confirmations ORDER BY order_number, id",
  );
/** Stored names in a folder, without the stamp and ledger id, reports included. */
const stored = (folder: 'processed' | 'failed') =>
  readdirSync(env.paths[folder])
    .map((n) => n.replace(/^\d{8}T\d{6}Z-\d+-/, ''))
    .sort();

/** Marks an order's due confirmations confirmed on the portal, then runs `next`. */
async function confirmThen<T>(order: string, next: () => Promise<T>): Promise<T> {
  const sends = new ConfirmationSends(env.db);
  for (const c of sends.due(t)) if (c.orderNumber === order) sends.confirmed(c.id, t);
  return next();
}

async function seed() {
  const sends = new ConfirmationSends(env.db);
  const shipments = new ShipmentStore(env.db);
  const l = {
    oldA: await ingest('old-a.csv', 'sku,stock_quantity\nSKU-A,1\nSKU-B,2\n'),
    oldB: await ingest('old-b.csv', 'sku,stock_quantity\nSKU-A,5\nSKU-B,3\n'),
    dup: await ingest('dup.csv', 'sku,stock_quantity\nSKU-A,5\nSKU-B,3\n'),
    bad: await ingest('bad.csv', 'nothing,that,names,a,kind\n1,2,3,4,5\n'),
    dcOld: await ingest('dc-old.csv', 'distribution_centre_code,sku,stock_quantity\nDC1,SKU-A,4\n'),
    conf0: await ingest('conf-0.csv', confirmationsCsv(['ORD-1,UPS,T1'])),
    conf1: await ingest(
      'conf-1.csv',
      confirmationsCsv(['ORD-2,UPS,T2', 'ORD-3,UPS,T3', 'ORD-4,UPS,T4']),
    ),
    // ORD-4 is confirmed on the portal before the ERP names another parcel for it: a conflict.
    conf1b: await confirmThen('ORD-4', () =>
      ingest('conf-1b.csv', confirmationsCsv(['ORD-4,DHL,T4B'])),
    ),
    conf2: await ingest('conf-2.csv', confirmationsCsv(['ORD-6,UPS,T6'])),
  };
  // A file whose commit went through but whose move did not (a crash): it stays 'committed'.
  env.drop('crashed.csv', 'sku,stock_quantity\nSKU-Z,9\n');
  await env
    .process('crashed.csv', {
      clock,
      hooks: {
        afterCommit: () => {
          throw new Error('crash after commit');
        },
      },
    })
    .catch(() => undefined);

  const orders = ['ORD-1', 'ORD-2', 'ORD-3', 'ORD-4', 'ORD-5', 'ORD-6', 'ORD-7'];
  shipments.recordPoll(
    orders.map((o) => ({ order_number: o })),
    t,
  );
  shipments.markExported(orders, 'ready-to-ship-1.json', t);
  t += 3_600_000;
  shipments.recordPoll(
    orders.filter((o) => o !== 'ORD-7').map((o) => ({ order_number: o })),
    t,
  );
  for (const c of sends.due(t)) {
    if (['ORD-1', 'ORD-4', 'ORD-6'].includes(c.orderNumber)) {
      sends.confirmed(c.id, t);
      shipments.markConfirmed(c.orderNumber, t);
    } else if (c.orderNumber === 'ORD-3') sends.failed(c.id, 'Order not found');
  }

  // Thirty-five days later: a new factory file (the newest now) and an order confirmed lately.
  t = T0 + 35 * DAY;
  const recent = await ingest('recent.csv', 'sku,stock_quantity\nSKU-C,7\n');
  shipments.recordPoll([{ order_number: 'ORD-8' }], t);
  shipments.markConfirmed('ORD-8', t);
  return { ...l, recent };
}

/** One retention run over the environment's data dir, as the daemon's retention service does. */
function pruneRetained(env: IngestEnv, clock: Clock, retentionDays: number) {
  const { db, log, dataDir } = env.deps;
  return createRetention({
    db,
    log,
    clock,
    retentionDays,
    pruneFiles: (cutoff, keep) => pruneHandledFiles({ dataDir, cutoff, keep }),
  }).prune();
}

describe('pruneRetained', () => {
  it('keeps everything younger than RETENTION_DAYS', async () => {
    await seed();
    const before = {
      ledger: ledgerIds(),
      orders: shipmentOrders(),
      confirmations: confirmationRows(),
      processed: stored('processed'),
      failed: stored('failed'),
    };
    const result = await pruneRetained(env, clock, 60);
    expect(result.files).toEqual({ processed: 0, failed: 0, reports: 0 });
    expect(result.rows).toEqual(NO_ROWS_PRUNED);
    expect({
      ledger: ledgerIds(),
      orders: shipmentOrders(),
      confirmations: confirmationRows(),
      processed: stored('processed'),
      failed: stored('failed'),
    }).toEqual(before);
  });

  it('prunes finished files and rows older than RETENTION_DAYS, never one still needed', async () => {
    const l = await seed();
    t = T0 + 36 * DAY;
    const result = await pruneRetained(env, clock, 30);

    expect(result.files).toEqual({ processed: 7, failed: 1, reports: 8 });
    expect(result.rows).toEqual({
      ...NO_ROWS_PRUNED,
      inboxFiles: 4,
      shipments: 3,
      confirmations: 2,
    });
    const [line] = env.capture.events('retention.pruned');
    expect(line).toMatchObject({
      retentionDays: 30,
      cutoff: new Date(T0 + 6 * DAY).toISOString(),
      files: result.files,
      rows: result.rows,
    });

    // Ledger: old-b still gives SKU-A and SKU-B their desired quantities; dc-old is the newest
    // DC file and gives its key; conf-1 has a confirmation still pending; conf-2 is the newest
    // confirmations file; recent.csv is young; the crashed file's row is still 'committed'.
    const crashed = ledgerIds().at(-2);
    expect(ledgerIds()).toEqual([l.oldB, l.dcOld, l.conf1, l.conf1b, l.conf2, crashed, l.recent]);
    expect(env.list('inbox')).toEqual(['crashed.csv']);
    // Orders: those confirmed more than 30 days ago with nothing left open go, and ORD-7, gone
    // from the ready-to-ship list unconfirmed as long ago. ORD-5 is still listed.
    expect(shipmentOrders()).toEqual(['ORD-2', 'ORD-3', 'ORD-4', 'ORD-5', 'ORD-8']);
    expect(confirmationRows()).toEqual([
      'ORD-2:pending',
      'ORD-3:failed',
      'ORD-4:confirmed',
      'ORD-4:conflict',
    ]);
    // Files: the one whose report still waits for the portal's answers, and the young one.
    expect(stored('processed')).toEqual([
      'conf-1.csv',
      'conf-1.csv.report.json',
      'recent.csv',
      'recent.csv.report.json',
    ]);
    expect(stored('failed')).toEqual([]);

    // Still right afterwards: the newest file's content again is a duplicate, and so is the
    // newest confirmations file's; pending work goes on; a second run prunes nothing.
    env.drop('recent-again.csv', 'sku,stock_quantity\nSKU-C,7\n');
    expect((await env.process('recent-again.csv', { clock })).status).toBe('duplicate');
    env.drop('conf-2-again.csv', confirmationsCsv(['ORD-6,UPS,T6']));
    expect((await env.process('conf-2-again.csv', { clock })).status).toBe('duplicate');
    expect(new ConfirmationSends(env.db).due(t).map((c) => c.orderNumber)).toEqual(['ORD-2']);
    const again = await pruneRetained(env, clock, 30);
    expect(again.files).toEqual({ processed: 0, failed: 0, reports: 0 });
    expect(again.rows).toEqual(NO_ROWS_PRUNED);
  });

  it('prunes a confirmation a correction replaced, once its order is confirmed and old', async () => {
    const shipments = new ShipmentStore(env.db);
    shipments.recordPoll([{ order_number: 'ORD-R' }], t);
    shipments.markExported(['ORD-R'], 'ready-to-ship-r.json', t);
    await ingest('r-1.csv', confirmationsCsv(['ORD-R,UPS,WRONG']));
    await ingest('r-2.csv', confirmationsCsv(['ORD-R,UPS,RIGHT']));
    expect(confirmationRows()).toEqual(['ORD-R:replaced', 'ORD-R:pending']);
    const sends = new ConfirmationSends(env.db);
    for (const c of sends.due(t)) sends.confirmed(c.id, t);
    shipments.markConfirmed('ORD-R', t);

    t = T0 + 36 * DAY;
    const result = await pruneRetained(env, clock, 30);
    expect(result.rows).toMatchObject({ shipments: 1, confirmations: 2 });
    expect(confirmationRows()).toEqual([]);
    expect(shipmentOrders()).toEqual([]);
  });

  it('leaves alone what it did not write: other names, folders, temp files still young', async () => {
    await seed();
    writeFileSync(join(env.paths.processed, 'operator-notes.txt'), 'kept');
    mkdirSync(join(env.paths.failed, '20200101T000000Z-9-a-folder'));
    const youngTemp = join(env.paths.processed, '.x.csv.1a2b.tmp');
    const oldTemp = join(env.paths.failed, '.y.csv.3c4d.tmp');
    writeFileSync(youngTemp, 'partial');
    writeFileSync(oldTemp, 'partial');
    utimesSync(oldTemp, new Date(T0), new Date(T0));
    utimesSync(youngTemp, new Date(T0 + 35 * DAY), new Date(T0 + 35 * DAY));
    t = T0 + 36 * DAY;
    await pruneRetained(env, clock, 30);
    expect(existsSync(join(env.paths.processed, 'operator-notes.txt'))).toBe(true);
    expect(existsSync(join(env.paths.failed, '20200101T000000Z-9-a-folder'))).toBe(true);
    expect(existsSync(youngTemp)).toBe(true);
    expect(existsSync(oldTemp)).toBe(false);
  });

  it('prunes counted attempts at files last tried before the cutoff, and keeps younger ones', async () => {
    const attempts = new InboxAttempts(env.db);
    // A file removed from inbox/ by hand after two failed tries, and one still failing lately.
    attempts.record('gone.csv:1:10:1', 'gone.csv', 'Error: bad', T0);
    attempts.record('gone.csv:1:10:1', 'gone.csv', 'Error: bad', T0 + DAY);
    attempts.record('late.csv:2:10:1', 'late.csv', 'Error: bad', T0 + 35 * DAY);
    t = T0 + 36 * DAY;
    const result = await pruneRetained(env, clock, 30);
    expect(result.rows.inboxAttempts).toBe(1);
    expect(attempts.get('gone.csv:1:10:1')).toBeUndefined();
    expect(attempts.get('late.csv:2:10:1')).toMatchObject({ name: 'late.csv', attempts: 1 });
  });

  it('prunes the row of a held file released long ago (its copy was read again as a new row)', async () => {
    // Rows as a release leaves them: the held file's row marked 'released' when the operator
    // decided, its put-back copy read again under a row of its own (here: the newer files).
    const releasedOld = await ingest('held-old.csv', 'sku,stock_quantity\nSKU-R,1\n');
    await ingest('copy-old.csv', 'sku,stock_quantity\nSKU-R,1\nSKU-S,1\n');
    t = T0 + 35 * DAY;
    const releasedYoung = await ingest('held-young.csv', 'sku,stock_quantity\nSKU-Y,2\n');
    await ingest('copy-young.csv', 'sku,stock_quantity\nSKU-Y,2\nSKU-S,2\n');
    const release = env.db.prepare(
      "UPDATE inbox_files SET status = 'released', finished_at = ? WHERE id = ?",
    );
    release.run(T0, releasedOld);
    release.run(T0 + 35 * DAY, releasedYoung);
    t = T0 + 36 * DAY;
    await pruneRetained(env, clock, 30);
    expect(ledgerIds()).not.toContain(releasedOld);
    expect(ledgerIds()).toContain(releasedYoung);
  });

  it('prunes every other table that grows: last pushes, decided held entries, operator requests, calls and logins', async () => {
    const db = env.db;
    t = T0 + 40 * DAY;
    const old = T0;
    const young = T0 + 39 * DAY;
    // Last pushes: 1,200 old keys that owe nothing (more than one batch), one old key with a
    // stored failure, one old key pending again, one young key.
    const push = db.prepare(
      "INSERT INTO stock_pushes (kind, dc, sku, at, quantity, outcome) VALUES ('factory', '', ?, ?, 1, ?)",
    );
    for (let i = 0; i < 1200; i++) push.run(`OLD-${String(i).padStart(4, '0')}`, old, 'updated');
    push.run('FAILING', old, 'rejected');
    push.run('PENDING', old, 'updated');
    push.run('YOUNG', young, 'updated');
    db.prepare(
      `INSERT INTO stock_failures (kind, dc, sku, quantity, error, attempts, first_failed_at, last_failed_at, next_attempt_at)
       VALUES ('factory', '', 'FAILING', 1, 'refused', 1, ?, ?, ?)`,
    ).run(old, old, t);
    db.prepare(
      "INSERT INTO pending_stock (kind, dc, sku, since) VALUES ('factory', '', 'PENDING', ?)",
    ).run(old);
    // Held: decided long ago (pruned, with its kept-aside rows), still held however old, the last
    // snapshot release, a released file whose put-back copy is not read yet, decided lately.
    const releasedFile = await ingest('released.csv', 'sku,stock_quantity\nSKU-R,1\n');
    const hashOf = (id: number) =>
      (
        db.prepare('SELECT content_hash AS h FROM inbox_files WHERE id = ?').get(id) as {
          h: string;
        }
      ).h;
    const held = db.prepare(
      `INSERT INTO held (id, source, file_id, name, content_hash, reason, report, source_at, held_at, status, decided_at)
       VALUES (?, ?, ?, ?, ?, 'too many zeros', '{}', ?, ?, ?, ?)`,
    );
    held.run(1, 'file', null, 'rejected.csv', 'h1', old, old, 'rejected', old);
    held.run(2, 'file', null, 'waiting.csv', 'h2', old, old, 'held', null);
    held.run(3, 'snapshot', null, 'snapshot', 'h3', old, old, 'released', old);
    held.run(
      4,
      'file',
      releasedFile,
      'released.csv',
      hashOf(releasedFile),
      old,
      old,
      'released',
      old,
    );
    held.run(5, 'snapshot', null, 'snapshot', 'h5', old, old, 'superseded', young);
    held.run(6, 'snapshot', null, 'snapshot', 'h6', old, old, 'superseded', old);
    db.prepare(
      "INSERT INTO held_rows (held_id, kind, dc, sku, quantity) VALUES (6, 'factory', '', 'SKU-H', 0)",
    ).run();
    new KeyValueStore(db).set('snapshot.last_release', { heldId: 3, writtenAt: old }, old);
    // Operator requests: answered long ago, never taken long ago, answered lately.
    const request = db.prepare(
      "INSERT INTO operator_requests (action, args, asked_at, taken_at, done_at, answer) VALUES ('pause', '{}', ?, ?, ?, ?)",
    );
    request.run(old, old, old, '{}');
    request.run(old, null, null, null);
    request.run(young, young, young, '{}');
    // Calls and logins: beyond the two hours the budget reads, and within them.
    for (const at of [t - 3 * 3_600_000, t - 30 * 60_000]) {
      db.prepare("INSERT INTO api_calls (at, lane) VALUES (?, 'stock')").run(at);
      db.prepare("INSERT INTO login_attempts (at, account, outcome) VALUES (?, 'a@b', 'ok')").run(
        at,
      );
    }

    const result = await pruneRetained(env, clock, 30);
    expect(result.rows).toMatchObject({
      stockPushes: 1200,
      held: 2,
      operatorRequests: 2,
      apiCalls: 1,
      loginAttempts: 1,
    });
    expect(ids('SELECT sku AS v FROM stock_pushes ORDER BY sku')).toEqual([
      'FAILING',
      'PENDING',
      'YOUNG',
    ]);
    expect(ids('SELECT id AS v FROM held ORDER BY id')).toEqual([2, 3, 4, 5]);
    expect(ids('SELECT held_id AS v FROM held_rows')).toEqual([]);
    expect(ids('SELECT asked_at AS v FROM operator_requests')).toEqual([young]);
    expect(ids('SELECT at AS v FROM api_calls')).toEqual([t - 30 * 60_000]);
    expect(ids('SELECT at AS v FROM login_attempts')).toEqual([t - 30 * 60_000]);
    const again = await pruneRetained(env, clock, 30);
    expect(again.rows).toEqual(NO_ROWS_PRUNED);
  });

  it('prunes answered product requests, never an unanswered one, its file nor the catalogue', async () => {
    const products = 'sku,name\nNEW-1,Chair\nNEW-2,Table\n';
    const old = await ingest('products-old.csv', products);
    const requests = new ProductRequests(env.db);
    const [first, second] = requests.ofFile(old);
    requests.settle(first!.id, { state: 'created', platformSku: '1.2.3' }, t);
    new Catalogue(env.db).record({ sku: 'NEW-1', platformSku: '1.2.3' }, t, {
      at: t,
      fileId: old,
      fileName: 'products-old.csv',
    });
    // A newer products file, so that the old one is not kept as the newest of its kind.
    await ingest('products-new.csv', 'sku,name\nNEW-3,Lamp\n');
    t = T0 + 36 * DAY;
    let result = await pruneRetained(env, clock, 30);
    expect(result.rows.productRequests).toBe(1);
    // NEW-2 still waits for the portal: its file, report and row stay.
    expect(requests.ofFile(old).map((r) => r.sku)).toEqual(['NEW-2']);
    expect(ledgerIds()).toContain(old);
    expect(stored('processed')).toContain('products-old.csv.report.json');
    requests.settle(second!.id, { state: 'failed', error: 'HTTP 400: no' }, T0 + DAY);
    result = await pruneRetained(env, clock, 30);
    expect(result.rows).toMatchObject({ productRequests: 1, inboxFiles: 1 });
    expect(new Catalogue(env.db).get('NEW-1')).toMatchObject({ createdBy: 'products-old.csv' });
  });

  it('prunes nothing with RETENTION_DAYS=0', async () => {
    await seed();
    t = T0 + 3650 * DAY;
    const result = await pruneRetained(env, clock, 0);
    expect(result.rows).toEqual(NO_ROWS_PRUNED);
    expect(stored('processed').length).toBeGreaterThan(10);
  });
});
