/**
 * Huge-line benchmark (not a test, #13 point 1): the daemon's memory while it meets files whose
 * one record is far larger than INBOX_MAX_RECORD_BYTES (default 1 MiB).
 *
 * The real daemon (`node src/cli/main.ts run`, default settings) runs as a child process. Two
 * files are dropped in turn, each written streaming under a temp name then renamed into inbox/:
 * a `.jsonl` whose second line is one 600 MB object, and a `.csv` whose second row holds one
 * 600 MB quoted field. Each must reach failed/ (`file.failed`, the reason naming the line) on its
 * first read; the daemon's peak RSS (VmHWM) over both is compared with the 300 MiB limit. Before
 * the cap, the review found the same `.jsonl` throwing `RangeError: Invalid string length` at
 * 1.6–2 GB RSS, offered again for ever.
 *
 *   node bench/hugeline.ts [--mb 600] [--quick | --scale S] [--json]
 */
import { once } from 'node:events';
import { createWriteStream, renameSync } from 'node:fs';
import { join } from 'node:path';
import { benchArgs, sized } from './lib/args.ts';
import { cleanupAll } from './lib/cleanup.ts';
import { startBenchDaemon } from './lib/daemon.ts';
import { emitResult, peakRssMiB } from './lib/result.ts';

const RSS_LIMIT_MIB = 300;
const args = benchArgs({ mb: { type: 'string' } });
const mb = sized(args.values.mb, 600, args.scale, 1);

const started = performance.now();
const bench = await startBenchDaemon(
  'hugeline',
  { products: 100 },
  { INBOX_STABILITY_MS: '200', RECONCILE_CRON: '0 0 1 1 *' },
);

/** Writes `head`, then `mb` MiB of 'a', then `tail`, streaming; renames it into inbox/. */
async function drop(name: string, head: string, tail: string): Promise<void> {
  const temp = join(bench.inbox, `.${name}.tmp`);
  const out = createWriteStream(temp);
  out.write(head);
  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  for (let i = 0; i < mb; i++) if (!out.write(chunk)) await once(out, 'drain');
  out.end(tail);
  await once(out, 'finish');
  renameSync(temp, join(bench.inbox, name));
}

try {
  const daemon = await bench.start();
  const rssAtStart = bench.daemonPeakRssMiB();
  const cases = [
    {
      name: 'huge.jsonl',
      head: '{"sku":"SKU-0000001","stock_quantity":3}\n{"sku":"',
      tail: '","stock_quantity":1}\n',
    },
    { name: 'huge.csv', head: 'sku,stock_quantity\n"', tail: '",1\nSKU-0000001,3\n' },
  ];
  const results: Array<{ name: string; failS: number; reason: string }> = [];
  for (const c of cases) {
    await drop(c.name, c.head, c.tail);
    const t = performance.now();
    const failed = await daemon.waitFor(
      (l) => l.event === 'file.failed' && l.file === c.name,
      300_000,
      `file.failed for ${c.name}`,
    );
    results.push({
      name: c.name,
      failS: (performance.now() - t) / 1000,
      reason: String(failed.reason),
    });
  }
  const daemonRss = bench.daemonPeakRssMiB();
  const retried = daemon.lines.filter((l) => l.event === 'file.attempt_failed').length;
  await cleanupAll();

  const wallS = (performance.now() - started) / 1000;
  console.log(`hugeline: two files with one ${mb} MiB record each, default INBOX_MAX_RECORD_BYTES`);
  for (const r of results) {
    console.log(`  ${r.name}: failed/ ${r.failS.toFixed(1)} s after its rename: ${r.reason}`);
  }
  console.log(
    `daemon peak RSS ${daemonRss?.toFixed(0) ?? '?'} MiB (at start ${rssAtStart?.toFixed(0) ?? '?'} MiB; limit ${RSS_LIMIT_MIB} MiB); failed attempts retried: ${retried}`,
  );
  console.log(`wall ${wallS.toFixed(1)} s, peak RSS ${peakRssMiB().toFixed(0)} MiB (bench)`);
  if (args.json) {
    emitResult({
      name: 'hugeline',
      wallS,
      peakRssMiB: peakRssMiB(),
      daemonPeakRssMiB: daemonRss,
      rows: [
        {
          measure: `daemon peak RSS, a ${mb} MiB JSON Lines line and a ${mb} MiB CSV field (real daemon)`,
          result: `${daemonRss?.toFixed(0) ?? '?'} MiB`,
          reference: `limit ${RSS_LIMIT_MIB} MiB`,
          ratio:
            daemonRss === undefined ? '–' : `${((daemonRss / RSS_LIMIT_MIB) * 100).toFixed(0)} %`,
        },
        ...results.map((r) => ({
          measure: `${r.name} (${mb} MiB record) from rename to failed/`,
          result: `${r.failS.toFixed(1)} s`,
          reference: 'one read, no retry',
          ratio: retried === 0 ? 'ok' : `${retried} retries`,
        })),
      ],
      data: { mb, results, daemonPeakRssMiB: daemonRss, rssAtStartMiB: rssAtStart, retried },
    });
  }
} finally {
  await cleanupAll();
}
