import { once } from 'node:events';
import { createWriteStream, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';

/** Writes `bytes` of one JSON Lines line (after a valid first line) to `path`, streaming. */
async function writeHugeLine(path: string, bytes: number): Promise<void> {
  const out = createWriteStream(path);
  out.write(`${JSON.stringify({ sku: seededSku(0), stock_quantity: 3 })}\n{"sku":"`);
  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  for (let written = 0; written < bytes; written += chunk.length) {
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end('","stock_quantity":1}\n');
  await once(out, 'finish');
}

/** #13 point 1 through the running daemon: a file with a huge line leaves inbox/ at once. */
describe('a file with a huge line (real daemon)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.cleanup();
    h = undefined;
  });

  it('goes to failed/ on its first read, naming the line, and the next file is processed', async () => {
    h = await startHarness('huge-record', {}, { INBOX_MAX_RECORD_BYTES: '65536' });
    const d = await h.start();
    const inbox = join(h.box.dataDir, 'inbox');
    const temp = join(inbox, '.huge.jsonl.tmp');
    await writeHugeLine(temp, 40 * 1024 * 1024);
    renameSync(temp, join(inbox, 'huge.jsonl'));

    const failed = await d.waitFor((l) => l.event === 'file.failed', 30_000, 'file.failed');
    expect(failed.file).toBe('huge.jsonl');
    expect(failed.reason).toBe(
      'line 2: a record longer than 65536 bytes (the INBOX_MAX_RECORD_BYTES limit)',
    );
    expect(readdirSync(inbox)).toEqual([]);
    const stored = readdirSync(join(h.box.dataDir, 'failed'));
    expect(stored.filter((n) => n.endsWith('huge.jsonl'))).toHaveLength(1);
    const report = JSON.parse(
      readFileSync(join(h.box.dataDir, 'failed', `${failed.storedAs}.report.json`), 'utf8'),
    );
    expect(report).toMatchObject({ outcome: 'failed', reason: failed.reason, rowsAccepted: 0 });

    h.drop('after.csv', factoryCsv([[seededSku(1), 9]]));
    const processed = await d.waitFor((l) => l.event === 'file.processed', 30_000);
    expect(processed.file).toBe('after.csv');
    // Read once, failed once: never offered again, never an error of the ingest job.
    expect(d.lines.filter((l) => l.event === 'file.failed')).toHaveLength(1);
    expect(d.lines.filter((l) => l.event === 'file.attempt_failed')).toEqual([]);
    expect(d.lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(await h.stop()).toBe(0);
  });
});
