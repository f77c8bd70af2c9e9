import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { applyRows, type BeforeApplyCheck } from '../../src/inventory/apply/applyStaged.ts';
import { MAX_REJECTED_LISTED } from '../../src/inventory/ingest/collector.ts';
import { readSnapshot } from '../../src/inventory/snapshot/read.ts';
import { InboxLedger } from '../../src/state/inbox/inboxLedger.ts';
import { stagingDir } from '../../src/state/staging/scratchFiles.ts';
import { recordStagedApply } from '../../src/state/staging/stagedApplyTable.ts';
import { rederiveOffers, setStockRules } from '../../src/state/stock/ruleOffers.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import { type IngestEnv, makeIngestEnv } from './helpers.ts';

let env: IngestEnv;
beforeEach(() => {
  env = makeIngestEnv('staged');
});
afterEach(async () => {
  await env.cleanup();
});

const csv = (rows: Array<[string, number]>) =>
  `sku,stock_quantity\n${rows.map(([s, q]) => `${s},${q}`).join('\n')}\n`;
const ten = Array.from({ length: 10 }, (_, i) => [`S${i}`, i + 1] as [string, number]);

function sources() {
  return env.db
    .prepare(
      'SELECT sku, quantity, source, source_file_id AS fileId, source_line AS line FROM desired_stock ORDER BY kind, dc, sku',
    )
    .all() as Array<{
    sku: string;
    quantity: number;
    source: string;
    fileId: number | null;
    line: number;
  }>;
}
const scratchFiles = () =>
  existsSync(stagingDir(env.dataDir)) ? readdirSync(stagingDir(env.dataDir)) : [];
const applies = () => env.db.prepare('SELECT COUNT(*) AS n FROM staged_applies').get();

describe('staged apply of a stock file', () => {
  it('merges in chunks: every key, last line wins, source file and line recorded, scratch removed', async () => {
    env.drop('s.csv', csv([...ten, ['S3', 99]]));
    const out = await env.process('s.csv', { chunkRows: 3 });
    expect(out.status).toBe('processed');
    const rows = sources();
    expect(rows).toHaveLength(10);
    expect(rows.find((r) => r.sku === 'S3')).toEqual({
      sku: 'S3',
      quantity: 99,
      source: `file:${out.ledgerId}`,
      fileId: out.ledgerId,
      line: 12,
    });
    expect(rows.find((r) => r.sku === 'S0')?.line).toBe(2);
    expect(env.report(out).stock).toEqual({
      keys: 10,
      differingFromPortal: 10,
      newlyPending: 10,
      failuresReplaced: 0,
      supersededByNewerFile: 0,
      // No stock rules: offered as the ERP counts (summed over the chunks).
      offers: {
        erpUnits: 150,
        offeredUnits: 150,
        adjusted: 0,
        excluded: 0,
        byRule: [],
        examples: [],
      },
    });
    expect(env.report(out).duplicates).toEqual({
      rows: 1,
      keys: [{ key: 'factory:S3', lines: [5, 12] }],
      keysOmitted: 0,
    });
    expect(env.dirty()).toHaveLength(10);
    expect(scratchFiles()).toEqual([]);
    expect(applies()).toEqual({ n: 0 });
  });

  it('before apply: a check reads the staged set by SQL and adds a row, which is applied', async () => {
    const seen: unknown[] = [];
    const check: BeforeApplyCheck = ({ db, source, table }) => {
      expect(table).toBe('staged.rows');
      seen.push(source);
      seen.push(
        db.prepare('SELECT kind, dc, sku, quantity, line FROM staged.rows ORDER BY sku').all(),
      );
      db.prepare(
        "INSERT INTO staged.rows (kind, dc, sku, quantity, line) VALUES ('factory', '', 'ABSENT', 0, 0) ON CONFLICT DO NOTHING",
      ).run();
      return undefined;
    };
    env.drop(
      's.csv',
      csv([
        ['A', 1],
        ['B', 2],
      ]),
    );
    const out = await env.process('s.csv', { checks: [check] });
    expect(seen).toEqual([
      { type: 'file', name: 's.csv', kind: 'factory' },
      [
        { kind: 'factory', dc: '', sku: 'A', quantity: 1, line: 2 },
        { kind: 'factory', dc: '', sku: 'B', quantity: 2, line: 3 },
      ],
    ]);
    expect(sources().map((r) => `${r.sku}=${r.quantity}@${r.line}`)).toEqual([
      'A=1@2',
      'ABSENT=0@0',
      'B=2@3',
    ]);
    expect(env.report(out).stock?.keys).toBe(3);
  });

  it('before apply: a check that holds the file leaves nothing applied and no ledger row', async () => {
    env.drop('s.csv', csv([['A', 1]]));
    const out = await env.process('s.csv', { checks: [() => ({ hold: 'too many zeros' })] });
    expect(out).toMatchObject({ status: 'held', reason: 'too many zeros', kind: 'factory_stock' });
    expect(env.desired()).toEqual([]);
    expect(env.db.prepare('SELECT COUNT(*) AS n FROM inbox_files').get()).toEqual({ n: 0 });
    expect(env.list('inbox')).toEqual(['s.csv']);
    expect(scratchFiles()).toEqual([]);
  });

  it("has state.db's WAL checkpointed by a thread of its own while it merges a large set, and gives the checkpoints back", async () => {
    const autocheckpoint = () => env.db.pragma('wal_autocheckpoint', { simple: true }) as number;
    const seen: number[] = [];
    const rows = Array.from({ length: 800 }, (_, i) => [`K${1000 + i}`, i] as [string, number]);
    env.drop('s.csv', csv(rows));
    const out = await env.process('s.csv', {
      chunkRows: 100,
      hooks: {
        // From the fifth chunk on, the merge waits (loop free) until the thread has taken over.
        afterChunk: async () => {
          seen.push(autocheckpoint());
          if (seen.length > 4) {
            await waitUntil(() => autocheckpoint() === 0, { message: 'the checkpoint thread' });
          }
        },
      },
    });
    expect(out.status).toBe('processed');
    expect(env.desired()).toHaveLength(800);
    // The first four chunks committed as ever, the thread started after the fourth; the last
    // ones took no checkpoint themselves.
    expect(seen.slice(0, 4)).toEqual([1000, 1000, 1000, 1000]);
    expect(seen.at(-1)).toBe(0);
    expect(autocheckpoint()).toBe(1000);
    expect(env.capture.events('ingest.checkpoints_inline')).toEqual([]);
  });

  it('merges its chunks without a flush on the event loop, the connection FULL again between them', async () => {
    // A flush on the loop waited behind the checkpoint thread's for up to a second on a slow
    // disk (docs/benchmarks.md, issue #40 point 5); a chunk a power cut takes back is merged again
    // from the cursor before it, and the apply's end is flushed off the loop (flushWal).
    const levels: unknown[] = [];
    const pragma = vi.spyOn(env.db, 'pragma');
    const rows = Array.from({ length: 450 }, (_, i) => [`K${i}`, i] as [string, number]);
    env.drop('n.csv', csv(rows));
    const out = await env.process('n.csv', {
      chunkRows: 100,
      hooks: {
        afterChunk: () => {
          levels.push(env.db.pragma('synchronous', { simple: true }));
        },
      },
    });
    expect(out.status).toBe('processed');
    expect(env.desired()).toHaveLength(450);
    // Five chunks (the fifth finds nothing more and ends the apply), each committed under NORMAL.
    const set = pragma.mock.calls.map(([p]) => p).filter((p) => /^synchronous = \d$/.test(p));
    expect(set.filter((p) => p === 'synchronous = 1')).toHaveLength(levels.length);
    expect(levels).toEqual(Array(levels.length).fill(2));
    expect(levels.length).toBeGreaterThanOrEqual(5);
    expect(env.db.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('a newer file applied first wins over an older one merged later, key by key', async () => {
    env.drop('new.csv', csv([['A', 2]]));
    env.drop(
      'old.csv',
      csv([
        ['A', 1],
        ['B', 1],
      ]),
    );
    const { utimesSync } = await import('node:fs');
    utimesSync(join(env.paths.inbox, 'old.csv'), new Date(1_000_000), new Date(1_000_000));
    await env.process('new.csv');
    const old = await env.process('old.csv', { chunkRows: 1 });
    expect(env.desired().map((r) => `${r.sku}=${r.quantity}`)).toEqual(['A=2', 'B=1']);
    expect(env.report(old).stock?.supersededByNewerFile).toBe(1);
  });
});

describe('reports with many rejected rows', () => {
  const bad = MAX_REJECTED_LISTED + 500;
  const body = (good: number) =>
    `sku,stock_quantity\n${Array.from({ length: bad }, (_, i) => `B${i},x`).join('\n')}\n${Array.from({ length: good }, (_, i) => `G${i},1`).join('\n')}\n`;

  it('list the first MAX_REJECTED_LISTED rejected rows in the report and the ledger, the rest counted (#28 point 3)', async () => {
    env.drop('s.csv', body(3));
    const out = await env.process('s.csv');
    expect(out.status).toBe('processed');
    const report = env.report(out);
    expect(report).toMatchObject({ rowsRejected: bad, rowsAccepted: 3, rejectedOmitted: 500 });
    expect(report.rejected).toHaveLength(MAX_REJECTED_LISTED);
    expect(report.rejected[0]).toMatchObject({ line: 2, key: 'factory:B0' });
    expect(report.rejected.at(-1)).toEqual({
      line: MAX_REJECTED_LISTED + 1,
      key: `factory:B${MAX_REJECTED_LISTED - 1}`,
      field: 'stock_quantity',
      reason: 'not a whole number ≥ 0',
      value: 'x',
    });
    expect(report.stock?.keys).toBe(3);
    const stored = JSON.parse(new InboxLedger(env.db).get(out.ledgerId!)!.report!);
    expect(stored.rejected).toHaveLength(MAX_REJECTED_LISTED);
    expect(stored.rejectedOmitted).toBe(500);
  });

  it('also for a file that fails because every row was rejected', async () => {
    env.drop('s.csv', body(0));
    const out = await env.process('s.csv');
    expect(out.status).toBe('failed');
    const report = env.report(out);
    expect(report.rejected).toHaveLength(MAX_REJECTED_LISTED);
    expect(report.rejectedOmitted).toBe(500);
    expect(scratchFiles()).toEqual([]);
  });
});

describe('staged apply of rows at hand', () => {
  it('stages them in order given: out of key order and a key twice, the last row wins; lines are positions; nothing left staged', async () => {
    const given = [
      { kind: 'factory' as const, dc: '', sku: 'S5', quantity: 1 },
      { kind: 'dc' as const, dc: 'DC1', sku: 'S1', quantity: 2 },
      { kind: 'factory' as const, dc: '', sku: 'S2', quantity: 3 },
      { kind: 'factory' as const, dc: '', sku: 'S5', quantity: 4 },
      { kind: 'factory' as const, dc: '', sku: 'S0', quantity: 5 },
    ];
    // Many rows out of order, so that the writer sets them aside and sorts them in at the end.
    const more = Array.from({ length: 300 }, (_, i) => ({
      kind: 'factory' as const,
      dc: '',
      sku: `T${String(299 - i).padStart(3, '0')}`,
      quantity: i,
    }));
    const out = await applyRows(
      { db: env.db, log: env.capture.log, dataDir: env.dataDir, chunkRows: 100 },
      [...given, ...more, { kind: 'factory', dc: '', sku: 'T000', quantity: 999 }],
      { type: 'snapshot' },
      (stagedFile) => ({
        applyId: recordStagedApply(env.db, {
          stagedFile,
          source: 'rows',
          fileId: null,
          sourceAt: 1,
          appliedAt: 2,
        }),
      }),
    );
    expect(out.status).toBe('applied');
    expect(out.status === 'applied' && out.totals.rows).toBe(304);
    const rows = sources();
    expect(rows.filter((r) => r.sku.startsWith('S'))).toEqual([
      { sku: 'S1', quantity: 2, source: 'rows', fileId: null, line: 2 },
      { sku: 'S0', quantity: 5, source: 'rows', fileId: null, line: 5 },
      { sku: 'S2', quantity: 3, source: 'rows', fileId: null, line: 3 },
      { sku: 'S5', quantity: 4, source: 'rows', fileId: null, line: 4 },
    ]);
    expect(rows.find((r) => r.sku === 'T000')).toMatchObject({ quantity: 999, line: 306 });
    expect(applies()).toEqual({ n: 0 });
    expect(scratchFiles()).toEqual([]);
  });
});

describe('staged snapshot', () => {
  it('reads in chunks and applies through the same steps: source snapshot, record numbers as lines', async () => {
    const path = join(env.dataDir, 'erp', 'snap.db');
    (await import('node:fs')).mkdirSync(join(env.dataDir, 'erp'));
    const snap = new Database(path);
    snap.exec(`CREATE TABLE f (sku TEXT, stock_quantity INTEGER);
               CREATE TABLE d (distribution_centre_code TEXT, sku TEXT, stock_quantity INTEGER);`);
    const ins = snap.prepare('INSERT INTO f VALUES (?, ?)');
    snap.transaction(() => {
      for (let i = 0; i < 12_345; i++) ins.run(`P${String(i).padStart(5, '0')}`, i);
    })();
    snap.prepare("INSERT INTO d VALUES ('DC1', 'P00001', 5), ('NOPE', 'P00002', 1)").run();
    snap.close();
    const seen: string[] = [];
    const out = await readSnapshot({
      db: env.db,
      log: env.capture.log,
      snapshotDb: path,
      factoryQuery: 'SELECT sku, stock_quantity FROM f ORDER BY rowid',
      dcQuery: 'SELECT distribution_centre_code, sku, stock_quantity FROM d',
      dcDirectory: env.dcDirectory,
      maxSkuLength: 64,
      dataDir: env.dataDir,
      chunkRows: 1000,
      checks: [
        ({ db, source }) => {
          seen.push(
            `${JSON.stringify(source)} ${String(db.prepare('SELECT COUNT(*) FROM staged.rows').pluck().get())}`,
          );
          return undefined;
        },
      ],
    });
    expect(out).toMatchObject({
      status: 'read',
      factory: { rowsRead: 12_345, rowsAccepted: 12_345 },
      dc: { rowsRead: 2, rowsAccepted: 1, rowsRejected: 1 },
    });
    expect(seen).toEqual(['{"type":"snapshot"} 12346']);
    const row = env.db
      .prepare(
        "SELECT source, source_file_id AS f, source_line AS l FROM desired_stock WHERE sku = 'P00010' AND kind = 'factory'",
      )
      .get();
    expect(row).toEqual({ source: 'snapshot', f: null, l: 11 });
    expect(env.db.prepare('SELECT COUNT(*) AS n FROM desired_stock').get()).toEqual({ n: 12_346 });
    expect(scratchFiles()).toEqual([]);
  });
});

describe('staged apply under stock rules', () => {
  it('offers per the rules chunk by chunk, sums up the report over the chunks, never pends an excluded key', async () => {
    setStockRules(env.db, [
      { sku: 'S1', exclude: true },
      { sku: 'S*', buffer: 2 },
    ]);
    rederiveOffers(env.db, 1);
    env.db
      .prepare("INSERT INTO pending_stock (kind, dc, sku, since) VALUES ('factory', '', 'S1', 0)")
      .run();
    env.drop('r.csv', csv(ten));
    const out = await env.process('r.csv', { chunkRows: 3 });
    expect(out.status).toBe('processed');
    const rows = env.db
      .prepare(
        "SELECT sku, erp_quantity AS erp, quantity, excluded FROM desired_stock WHERE sku IN ('S0', 'S1', 'S9') ORDER BY sku",
      )
      .all();
    expect(rows).toEqual([
      { sku: 'S0', erp: 1, quantity: 0, excluded: 0 },
      { sku: 'S1', erp: 2, quantity: 2, excluded: 1 },
      { sku: 'S9', erp: 10, quantity: 8, excluded: 0 },
    ]);
    expect(env.dirty()).toHaveLength(9);
    expect(env.dirty()).not.toContain('factory:S1');
    const offers = env.report(out).stock?.offers;
    if (offers === undefined) throw new Error('no offers in the report');
    // ERP 1..10 = 55; offered: S1 excluded, the rest max(0, q − 2) = 0 + 1 + … + 8 = 36.
    expect(offers).toMatchObject({ erpUnits: 55, offeredUnits: 36, adjusted: 9, excluded: 1 });
    expect(offers.byRule).toEqual([
      { rule: 'rules[0]: sku S1 → exclude', keys: 1 },
      { rule: 'rules[1]: sku S* → buffer 2', keys: 9 },
    ]);
    expect(offers.examples).toHaveLength(10);
    expect(offers.examples[1]).toEqual({
      key: 'factory:S1',
      erp: 2,
      offered: null,
      rule: 'rules[0]: sku S1 → exclude',
    });
  });
});
