/**
 * A real jump of a real process's wall clock: the daemon runs under libfaketime, whose offset is
 * read from a file the test rewrites while the daemon runs (FAKETIME_TIMESTAMP_FILE with
 * FAKETIME_NO_CACHE), the monotonic clock left alone (FAKETIME_DONT_FAKE_MONOTONIC) as a real
 * jump leaves it. Skipped, saying so, where libfaketime is not installed (CI installs `faketime`).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { factoryCsv, type LogLine, seededSku } from '../helpers/daemonHarness.ts';
import type { CliProcess } from '../helpers/daemonProcess.ts';
import { type ProcessHarness, startProcessHarness } from '../helpers/processHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

const LIBFAKETIME = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1',
  '/usr/lib/faketime/libfaketimeMT.so.1',
  '/usr/local/lib/faketime/libfaketimeMT.so.1',
].find((p) => existsSync(p));

const POLL_EVERY_S = 5;
const DAY_MS = 86_400_000;

let h: ProcessHarness | undefined;
let offsetDir: string | undefined;
afterEach(async () => {
  await h?.cleanup();
  if (offsetDir) rmSync(offsetDir, { recursive: true, force: true });
});

/** The next line matching after `line`, within `timeoutMs`. */
const lineAfter = (
  d: CliProcess,
  line: LogLine,
  match: (l: LogLine) => boolean,
  timeoutMs: number,
  what: string,
) => d.waitFor((l) => d.lines.indexOf(l) > d.lines.indexOf(line) && match(l), timeoutMs, what);

describe.skipIf(LIBFAKETIME === undefined)(
  `the daemon's clock jumps for real (libfaketime${LIBFAKETIME === undefined ? ' not installed: apt-get install faketime' : ''})`,
  { timeout: 180_000 },
  () => {
    it('a day back: the polls go on within two intervals, and calls are not blocked', async () => {
      offsetDir = mkdtempSync(join(tmpdir(), 'supplier-sync-faketime-'));
      const offsetFile = join(offsetDir, 'offset');
      writeFileSync(offsetFile, '+0\n');
      h = await startProcessHarness(
        'clock-jump',
        { products: 50 },
        {
          LD_PRELOAD: LIBFAKETIME!,
          FAKETIME_TIMESTAMP_FILE: offsetFile,
          FAKETIME_NO_CACHE: '1',
          FAKETIME_DONT_FAKE_MONOTONIC: '1',
          SHIPMENTS_POLL_CRON: `*/${POLL_EVERY_S} * * * * *`,
        },
      );
      const d = await h.start();
      h.drop('before.csv', factoryCsv([[seededSku(0), 5]]));
      await d.waitFor((l) => l.event === 'file.processed' && l.file === 'before.csv', 30_000);
      await waitUntil(() => h!.sim.store.factoryStock(seededSku(0))?.stock_quantity === 5, {
        timeoutMs: 30_000,
        message: 'the first file pushed',
      });
      const polled = await d.waitFor((l) => l.event === 'shipments.polled', 30_000, 'a poll');

      writeFileSync(offsetFile, '-1d\n');
      const jump = await lineAfter(
        d,
        polled,
        (l) => l.event === 'clock.jump',
        15_000,
        'clock.jump',
      );
      expect(jump.level).toBe('warn');
      expect(Math.abs(Number(jump.jumpMs) + DAY_MS)).toBeLessThan(15_000);
      // Asked for within two intervals of the jump (it is noticed within the first), polled once
      // the job has run and the portal answered (5 s allowed for that on a loaded machine); then
      // the next, an interval on.
      const next = await lineAfter(
        d,
        jump,
        (l) => l.event === 'shipments.polled',
        2 * POLL_EVERY_S * 1000 + 5000,
        'a poll within two intervals of the jump',
      );
      await lineAfter(
        d,
        next,
        (l) => l.event === 'shipments.polled',
        2 * POLL_EVERY_S * 1000,
        'the next poll',
      );

      // The calls made before the jump (stamped a day ahead of the clock now) block nothing.
      h.drop('after.csv', factoryCsv([[seededSku(0), 7]]));
      await waitUntil(() => h!.sim.store.factoryStock(seededSku(0))?.stock_quantity === 7, {
        timeoutMs: 30_000,
        message: 'the file dropped after the jump pushed',
      });
      expect(d.lines.filter((l) => l.event === 'api.budget_wait')).toEqual([]);
      expect(await h.stop()).toBe(0);
    });
  },
);
