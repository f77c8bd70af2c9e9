/**
 * Hostile-input benchmark (not a test, #28 point 2): the daemon's peak memory while it meets
 * files that are small on disk (or cheap to write) and huge in memory for a careless reader, one
 * of each format (test/helpers/hostileFiles.ts): a workbook with a 300 MiB inline-string cell, a
 * workbook of 5 million shared strings, a workbook header of 4 million cells, a 32 MiB JSON array
 * of empty objects, a CSV of one 64 MiB quoted field, a TSV header of a million columns, JSON
 * Lines of ~1 MiB objects of 60,000 keys.
 *
 * The real daemon (`node --max-semi-space-size=16 src/cli/main.ts run`: the flags it runs with,
 * src/cli/nodeFlags.ts) runs as a child process, started afresh for each file (RSS once grown is
 * not given back, so each peak is that file's); each file is waited for in failed/ or
 * processed/, and the daemon's peak RSS (VmHWM) is compared with the 300 MiB limit.
 *
 *   node bench/hostile.ts [--only hostile-rows.csv,…] [--quick | --scale S] [--json]
 */
import { join } from 'node:path';
import { DAEMON_NODE_ENV, DAEMON_NODE_FLAGS } from '../src/cli/nodeFlags.ts';
import { hostileFiles } from '../test/helpers/hostileFiles.ts';
import { benchArgs } from './lib/args.ts';
import { cleanupAll } from './lib/cleanup.ts';
import { startBenchDaemon } from './lib/daemon.ts';
import { emitResult, peakRssMiB } from './lib/result.ts';

const RSS_LIMIT_MIB = 300;
const args = benchArgs({ only: { type: 'string' } });
const only = typeof args.values.only === 'string' ? args.values.only.split(',') : undefined;

const started = performance.now();
const bench = await startBenchDaemon(
  'hostile',
  { products: 100 },
  {
    INBOX_STABILITY_MS: '200',
    RECONCILE_CRON: '0 0 1 1 *',
    NODE_OPTIONS: DAEMON_NODE_FLAGS.join(' '),
    ...DAEMON_NODE_ENV,
  },
);

interface Result {
  readonly name: string;
  readonly what: string;
  readonly outcome: string;
  readonly seconds: number;
  readonly peakMiB: number | undefined;
  readonly reason: string;
}

try {
  const results: Result[] = [];
  let rssAtStart: number | undefined;
  let alive = true;
  for (const f of hostileFiles(args.scale).filter(
    (x) => only === undefined || only.includes(x.name),
  )) {
    // A fresh daemon per file: RSS once grown is not given back, so a peak is one file's only.
    const daemon = await bench.start();
    rssAtStart = Math.max(rssAtStart ?? 0, bench.daemonPeakRssMiB() ?? 0);
    const t = performance.now();
    f.write(join(bench.inbox, f.name));
    const done = await daemon.waitFor(
      (l) => (l.event === 'file.failed' || l.event === 'file.processed') && l.file === f.name,
      600_000,
      `${f.name} handled`,
    );
    results.push({
      name: f.name,
      what: f.what,
      outcome: String(done.event).slice('file.'.length),
      seconds: (performance.now() - t) / 1000,
      peakMiB: bench.daemonPeakRssMiB(),
      reason: String(done.reason ?? ''),
    });
    alive &&= daemon.child.exitCode === null && daemon.child.signalCode === null;
    daemon.kill('SIGTERM');
    await daemon.exited;
  }
  await cleanupAll();

  const wallS = (performance.now() - started) / 1000;
  const worst = Math.max(...results.map((r) => r.peakMiB ?? 0));
  console.log(`hostile: one hostile file per format (scale ${args.scale}), the real daemon`);
  for (const r of results) {
    console.log(
      `  ${r.name}: ${r.what}: ${r.outcome} in ${r.seconds.toFixed(1)} s, peak RSS ${r.peakMiB?.toFixed(0) ?? '?'} MiB${r.reason === '' ? '' : ` (${r.reason.slice(0, 120)})`}`,
    );
  }
  console.log(
    `daemon at start ${rssAtStart?.toFixed(0) ?? '?'} MiB, worst peak ${worst.toFixed(0)} MiB (limit ${RSS_LIMIT_MIB} MiB), alive after: ${alive}`,
  );
  console.log(`wall ${wallS.toFixed(1)} s, peak RSS ${peakRssMiB().toFixed(0)} MiB (bench)`);
  if (args.json) {
    emitResult({
      name: 'hostile',
      wallS,
      peakRssMiB: peakRssMiB(),
      daemonPeakRssMiB: worst,
      rows: results.map((r) => ({
        measure: `daemon peak RSS, ${r.what} (${r.outcome})`,
        result: `${r.peakMiB?.toFixed(0) ?? '?'} MiB`,
        reference: `limit ${RSS_LIMIT_MIB} MiB`,
        ratio:
          r.peakMiB === undefined ? '–' : `${((r.peakMiB / RSS_LIMIT_MIB) * 100).toFixed(0)} %`,
      })),
      data: { scale: args.scale, results, rssAtStartMiB: rssAtStart, alive },
    });
  }
} finally {
  await cleanupAll();
}
