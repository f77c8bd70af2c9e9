/**
 * Latency benchmark (not a test): from a file's last write to the first bulk call it causes,
 * minus the configured stability delay of the inbox watcher.
 *
 * The real daemon (`node src/cli/main.ts run`) runs as a child process against the simulator in
 * this process, with Redis (REDIS_URL, or a private redis-server). After one warm-up drop (the
 * first start: login, the first push), each drop writes a 10-row factory stock CSV that changes
 * every row (temp name, then rename, as an ERP should); its last write time is taken when the
 * rename returns. The first bulk call is the first `POST /factory-stocks/bulk-update` in the
 * simulator's request log (`sim.stats().requests[i].at`, the same clock) at or after that time.
 * The next drop waits until the push has finished.
 *
 *   node bench/latency.ts [--drops 20] [--stability-ms 2000] [--quick | --scale S] [--json]
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchArgs, sized } from './lib/args.ts';
import { cleanupAll } from './lib/cleanup.ts';
import { startBenchDaemon } from './lib/daemon.ts';
import { emitResult, fmtInt, median, peakRssMiB, percentile } from './lib/result.ts';

const args = benchArgs({ drops: { type: 'string' }, 'stability-ms': { type: 'string' } });
const drops = sized(args.values.drops, 20, args.scale, 5);
const stabilityMs = sized(args.values['stability-ms'], 2000, 1, 0);
const BULK = 'POST /factory-stocks/bulk-update';
const ROWS = 10;

const started = performance.now();
const bench = await startBenchDaemon(
  'latency',
  { products: 1000 },
  {
    INBOX_STABILITY_MS: String(stabilityMs),
    // Nothing scheduled should run during the drops but what a daemon always runs.
    RECONCILE_CRON: '0 0 1 1 *',
  },
);

try {
  const daemon = await bench.start();
  const pushedCount = () => daemon.lines.filter((l) => l.event === 'sync.pushed').length;

  /** Drops file n; resolves with ms from its last write to its first bulk call, and to its report. */
  async function drop(n: number): Promise<{ bulkMs: number; processedMs: number }> {
    const name = `drop-${String(n).padStart(3, '0')}.csv`;
    const rows = Array.from(
      { length: ROWS },
      (_, i) => `SKU-${String(i + 1).padStart(7, '0')},${1000 + n}`,
    );
    const pushesBefore = pushedCount();
    const temp = join(bench.inbox, `.${name}.tmp`);
    writeFileSync(temp, `sku,stock_quantity\n${rows.join('\n')}\n`);
    renameSync(temp, join(bench.inbox, name));
    const lastWrite = Date.now();
    const deadline = lastWrite + stabilityMs + 60_000;
    let bulkAt: number | undefined;
    while (bulkAt === undefined) {
      if (Date.now() > deadline) throw new Error(`no bulk call within 60 s after ${name}`);
      bulkAt = bench.sim.stats().requests.find((r) => r.route === BULK && r.at >= lastWrite)?.at;
      if (bulkAt === undefined) await new Promise((r) => setTimeout(r, 2));
    }
    const processed = await daemon.waitFor(
      (l) => l.event === 'file.processed' && l.file === name,
      60_000,
      `file.processed of ${name}`,
    );
    await daemon.waitFor(() => pushedCount() > pushesBefore, 60_000, `sync.pushed after ${name}`);
    const processedAt = Date.parse(String(processed.time));
    return { bulkMs: bulkAt - lastWrite, processedMs: processedAt - lastWrite };
  }

  console.error(`latency: warm-up drop (first start), then ${drops} drops`);
  await drop(0);
  const bulk: number[] = [];
  const processed: number[] = [];
  for (let n = 1; n <= drops; n++) {
    const d = await drop(n);
    bulk.push(d.bulkMs - stabilityMs);
    processed.push(d.processedMs - stabilityMs);
    // A pause between drops, so that each one meets an idle daemon.
    await new Promise((r) => setTimeout(r, 200));
  }
  const daemonRss = bench.daemonPeakRssMiB();
  const calls = bench.sim.stats().requests.filter((r) => r.route === BULK).length;
  await cleanupAll();

  const p50 = median(bulk);
  const p95 = percentile(bulk, 95);
  const wallS = (performance.now() - started) / 1000;
  console.log(
    `latency: ${drops} drops of ${ROWS} factory rows, INBOX_STABILITY_MS ${stabilityMs}, ${calls} bulk calls in all`,
  );
  console.log('');
  console.log('| ms after the last write, minus the stability delay | median | p95 | min | max |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  const line = (what: string, v: number[]) =>
    console.log(
      `| ${what} | ${fmtInt(median(v))} | ${fmtInt(percentile(v, 95))} | ${fmtInt(Math.min(...v))} | ${fmtInt(Math.max(...v))} |`,
    );
  line('file processed (daemon log `file.processed`)', processed);
  line('first bulk call (simulator request log)', bulk);
  console.log('');
  console.log(
    `wall ${wallS.toFixed(1)} s, peak RSS ${peakRssMiB().toFixed(0)} MiB (bench), ${daemonRss?.toFixed(0) ?? '?'} MiB (daemon)`,
  );
  if (args.json) {
    emitResult({
      name: 'latency',
      wallS,
      peakRssMiB: peakRssMiB(),
      daemonPeakRssMiB: daemonRss,
      rows: [
        {
          measure: `last write → first bulk call − stability delay (${drops} drops of ${ROWS} rows, real daemon)`,
          result: `median ${fmtInt(p50)} ms, p95 ${fmtInt(p95)} ms`,
          reference: `INBOX_STABILITY_MS ${fmtInt(stabilityMs)} (subtracted)`,
          ratio: '–',
        },
      ],
      data: {
        drops,
        rows: ROWS,
        stabilityMs,
        bulkMinusStabilityMs: bulk,
        processedMinusStabilityMs: processed,
      },
    });
  }
} finally {
  await cleanupAll();
}
