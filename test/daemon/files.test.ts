/**
 * Seeing what became of the inbox files (#30): `files`, a failed file or rejected rows in the
 * status verdict, `explain` of a key the ERP named only in a rejected row. Files are handled by
 * the real pipeline on a real state.db; the commands run in this process (main), as the CLI.
 */
import { mkdirSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { rejectHeld } from '../../src/inventory/index.ts';
import { StockFailures } from '../../src/state/stock/stockFailures.ts';
import { type IngestEnv, makeIngestEnv } from '../inventory/helpers.ts';

let env: IngestEnv;
beforeEach(() => {
  env = makeIngestEnv('files');
  mkdirSync(env.paths.held, { recursive: true });
});
afterEach(async () => {
  await env.cleanup();
});

/** Runs one command line in this process with the test's data dir. */
async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await main(args, {
    env: { SYNC_DATA_DIR: env.dataDir, REDIS_URL: 'redis://127.0.0.1:1', SYNC_TIMEZONE: 'UTC' },
    stdout,
    stderr,
    signal: new AbortController().signal,
  });
  return { code, out, err };
}

const guard = { zeroPercent: 50, dropPercent: 80, minKeys: 1 };

/** Four files: one good, one with two bad rows, one that fails whole, one the guard rails hold. */
async function handleFiles(): Promise<void> {
  env.portalHolds(Array.from({ length: 10 }, (_, i) => ({ sku: `S${i}`, quantity: 10 })));
  env.drop('good.csv', 'sku,stock_quantity\nS1,11\nS2,12\n');
  await env.process('good.csv', { guard });
  env.drop('some-bad.csv', 'sku,stock_quantity\nS3,13\nONLY-BAD,abc\nS4,1.5\n');
  await env.process('some-bad.csv', { guard });
  env.drop('no-kind.csv', 'colour,size\nred,XL\n');
  await env.process('no-kind.csv', { guard });
  env.drop(
    'zeroes.csv',
    `sku,stock_quantity\n${Array.from({ length: 10 }, (_, i) => `S${i},0`).join('\n')}\n`,
  );
  await env.process('zeroes.csv', { guard });
}

describe('files', () => {
  it('lists the files handled, newest first, with outcome, counts, report and held id', async () => {
    await handleFiles();
    const r = await run(['files', '--json']);
    expect(r.code, r.err).toBe(0);
    const files = JSON.parse(r.out) as Array<Record<string, unknown>>;
    expect(files.map((f) => [f.file, f.outcome])).toEqual([
      ['zeroes.csv', 'held'],
      ['no-kind.csv', 'failed'],
      ['some-bad.csv', 'processed'],
      ['good.csv', 'processed'],
    ]);
    const [held, failed, someBad, good] = files;
    expect(good).toMatchObject({ rowsRead: 2, rowsAccepted: 2, rowsRejected: 0, reason: null });
    expect(someBad).toMatchObject({ rowsRead: 3, rowsAccepted: 1, rowsRejected: 2 });
    expect(someBad!.reportPath).toBe(`${env.paths.processed}/${someBad!.storedAs}.report.json`);
    expect(failed).toMatchObject({ rowsRead: 0, heldId: null });
    expect(failed!.reason).toMatch(/no columns naming a kind/);
    expect(failed!.reportPath).toBe(`${env.paths.failed}/${failed!.storedAs}.report.json`);
    expect(held).toMatchObject({ heldId: 1, outcome: 'held' });
    expect(held!.reportPath).toBe(`${env.paths.held}/${held!.storedAs}.report.json`);
    for (const f of files) {
      expect(Date.parse(f.receivedAt as string)).toBeGreaterThan(0);
      expect(Date.parse(f.finishedAt as string)).toBeGreaterThanOrEqual(
        Date.parse(f.receivedAt as string),
      );
    }

    // A held file rejected is `rejected`, its report in failed/.
    await rejectHeld({ db: env.db, dataDir: env.dataDir, now: Date.now }, 1);
    const after = JSON.parse((await run(['files', '--json', '--limit', '1'])).out);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ file: 'zeroes.csv', outcome: 'rejected', heldId: null });
    expect(after[0].reportPath).toBe(`${env.paths.failed}/${after[0].storedAs}.report.json`);

    const text = await run(['files']);
    expect(text.out).toMatch(/rejected\s+zeroes\.csv/);
    expect(text.out).toContain('some-bad.csv  3 row(s) read, 1 accepted, 2 rejected');
    expect(text.out).not.toMatch(/[{}]/);
    expect((await run(['files', '--limit', '0'])).code).toBe(2);
  });

  it('makes the status degraded for a day, naming the files, and counts them', async () => {
    await handleFiles();
    const r = await run(['status', '--json']);
    expect(r.code, r.err).toBe(0);
    const s = JSON.parse(r.out);
    expect(s.files.counts).toMatchObject({ processed: 2, failed: 1, held: 1 });
    expect(s.files.rowsRejected).toBe(2);
    expect(s.files.problemCount).toBe(2);
    const reason = (s.health.reasons as string[]).find((x) => x.includes('last 24 h'));
    expect(reason).toContain('2 file(s) in the last 24 h failed or had rejected rows');
    expect(reason).toContain('no-kind.csv failed');
    expect(reason).toContain('some-bad.csv: 2 of 3 row(s) rejected');
    expect((await run(['status'])).out).toMatch(
      /^files 24 h +2 processed, 1 failed, 1 held; 2 row\(s\) rejected/m,
    );
    // A day later they no longer count.
    env.db.prepare('UPDATE inbox_files SET finished_at = finished_at - 86400001').run();
    const later = JSON.parse((await run(['status', '--json'])).out);
    expect(later.files.problemCount).toBe(0);
    expect((later.health.reasons as string[]).some((x) => x.includes('last 24 h'))).toBe(false);
  });
});

describe('explain of a key named only in rejected rows', () => {
  it('says so, with the file, line and reason, instead of "never named"', async () => {
    await handleFiles();
    const json = await run(['explain', 'factory:ONLY-BAD', '--json']);
    expect(json.code, json.err).toBe(0);
    const e = JSON.parse(json.out);
    expect(e.erpQuantity).toBeNull();
    expect(e.rejectedRows).toEqual([
      expect.objectContaining({
        file: 'some-bad.csv',
        line: 3,
        field: 'stock_quantity',
        value: 'abc',
        reason: 'not a whole number ≥ 0',
      }),
    ]);
    const text = await run(['explain', 'factory:ONLY-BAD']);
    expect(text.out).toContain('named this key only in rejected rows');
    expect(text.out).toContain('line 3 of some-bad.csv');
    expect(text.out).not.toContain('never named');
    // A key applied and also named in a bad row shows both.
    const s4 = JSON.parse((await run(['explain', 'factory:S4', '--json'])).out);
    expect(s4.rejectedRows[0]).toMatchObject({ line: 4, value: '1.5' });
    // Nothing known: still exit 1.
    expect((await run(['explain', 'factory:NOWHERE'])).code).toBe(1);
  });
});

describe('names and texts from outside, printed for a person', () => {
  /** Retitles a terminal's window, rings its bell and clears its screen, printed raw. */
  const EVIL = '\x1b]0;pwned\x07\x1b[2J';
  const SHOWN = '\\x1B]0;pwned\\x07\\x1B[2J';
  /** Any character a terminal would obey rather than show (the newline ends each line). */
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

  it('are escaped by files, status, held, explain, failures and pause; --json carries them as JSON does', async () => {
    env.portalHolds(Array.from({ length: 10 }, (_, i) => ({ sku: `S${i}`, quantity: 10 })));
    env.drop(`${EVIL}good.csv`, 'sku,stock_quantity\nS1,11\n');
    await env.process(`${EVIL}good.csv`, { guard });
    env.drop(`${EVIL}no-kind.csv`, `colour${EVIL},size\nred,XL\n`);
    await env.process(`${EVIL}no-kind.csv`, { guard });
    const zeroes = Array.from({ length: 10 }, (_, i) => `S${i},0`).join('\n');
    env.drop(`${EVIL}zeroes.csv`, `sku,stock_quantity\n${zeroes}\n`);
    await env.process(`${EVIL}zeroes.csv`, { guard });
    // The portal's words for a rejected item, kept as its error.
    new StockFailures(env.db).record(
      { kind: 'factory', dc: '', sku: 'S5', quantity: 3 },
      `Product${EVIL} not found\u202e`,
      false,
      Date.now(),
      { baseMs: 60_000, maxMs: 3_600_000, notFoundMs: 3_600_000 },
    );
    const pause = await run(['pause', '--reason', `lunch${EVIL}\nsupplier-sync: healthy`]);
    expect(pause.code, pause.err).toBe(0);

    const shown = {
      pause,
      files: await run(['files']),
      status: await run(['status']),
      held: await run(['held']),
      explain: await run(['explain', 'factory:S1']),
      failures: await run(['failures']),
    };
    for (const [command, r] of Object.entries(shown)) {
      expect(r.out, command).not.toMatch(RAW);
      expect(r.out, command).toContain(SHOWN);
    }
    expect(shown.files.out).toContain(`${SHOWN}no-kind.csv`);
    expect(shown.held.out).toContain(`${SHOWN}zeroes.csv`);
    expect(shown.explain.out).toContain(`${SHOWN}good.csv`);
    expect(shown.failures.out).toContain(`Product${SHOWN} not found\\u202E`);
    // The pause reason's newline forges no line of its own.
    expect(shown.status.out).toContain(`lunch${SHOWN}\\nsupplier-sync: healthy`);
    expect(shown.status.out.split('\n').filter((l) => l.startsWith('supplier-sync:'))).toHaveLength(
      1,
    );

    const json = JSON.parse((await run(['files', '--json'])).out) as Array<{ file: string }>;
    expect(json.map((f) => f.file)).toContain(`${EVIL}good.csv`);
  });
});
