/**
 * `npm run bench`: runs the selected benchmarks, each in its own child process (so peak RSS is per
 * benchmark), one after the other, and prints one table. Each benchmark's own output goes to
 * stderr, prefixed with its name; the table goes to stdout.
 *
 *   node bench/run.ts [--only ingest,economy,latency,budget,formats,hugeline,hostile,rules,guard,firstsync,peaks,density,loop,suggest,products] [--quick | --scale S] [--json]
 *
 * --quick runs every benchmark at about a tenth of its size (under a minute in all); the full
 * sizes are the ones reported in docs/benchmarks.md. --json prints the raw results instead of the
 * table.
 */
import { spawn } from 'node:child_process';
import { availableParallelism, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { type BenchResult, parseResult, RESULT_MARKER } from './lib/result.ts';

const BENCHMARKS = [
  'ingest',
  'economy',
  'latency',
  'budget',
  'formats',
  'hugeline',
  'hostile',
  'rules',
  'guard',
  'firstsync',
  'peaks',
  'density',
  'loop',
  'suggest',
  'products',
] as const;
type Name = (typeof BENCHMARKS)[number];

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    scale: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const selected = (values.only ?? BENCHMARKS.join(','))
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s !== '');
for (const name of selected) {
  if (!(BENCHMARKS as readonly string[]).includes(name)) {
    console.error(`unknown benchmark '${name}'; known: ${BENCHMARKS.join(', ')}`);
    process.exit(2);
  }
}
const childArgs = ['--json'];
if (values.quick) childArgs.push('--quick');
if (values.scale !== undefined) childArgs.push('--scale', values.scale);

let current: ReturnType<typeof spawn> | undefined;
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    interrupted = true;
    // The child cleans up on SIGTERM (bench/lib/cleanup.ts); we wait for it to exit.
    current?.kill('SIGTERM');
  });
}

/** Runs one benchmark; resolves with its result, or an error text. */
function runOne(name: Name): Promise<BenchResult | string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(import.meta.dirname, `${name}.ts`), ...childArgs], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    current = child;
    const stdout: string[] = [];
    const tail: string[] = [];
    const show = (line: string) => {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      if (!line.startsWith(RESULT_MARKER)) console.error(`[${name}] ${line}`);
    };
    createInterface({ input: child.stdout }).on('line', (line) => {
      stdout.push(line);
      show(line);
    });
    createInterface({ input: child.stderr }).on('line', show);
    child.on('close', (code, signal) => {
      current = undefined;
      const result = parseResult(stdout.join('\n'));
      if (code === 0 && result) resolve(result);
      else resolve(`exited with ${code ?? signal}${result ? '' : ', no result'}`);
    });
  });
}

const results: Array<{ name: Name; result: BenchResult | string }> = [];
const started = performance.now();
for (const name of selected as Name[]) {
  if (interrupted) break;
  console.error(`[${name}] starting${values.quick ? ' (quick)' : ''}`);
  results.push({ name, result: await runOne(name) });
}
const totalS = (performance.now() - started) / 1000;

if (values.json) {
  console.log(JSON.stringify({ totalS, results }, null, 2));
} else {
  const header = ['benchmark', 'measure', 'result', 'reference', 'ratio', 'wall', 'peak RSS'];
  const table: string[][] = [];
  for (const { name, result } of results) {
    if (typeof result === 'string') {
      table.push([name, 'FAILED', result, '', '', '', '']);
      continue;
    }
    const rss =
      result.daemonPeakRssMiB === undefined
        ? `${result.peakRssMiB.toFixed(0)} MiB`
        : `${result.peakRssMiB.toFixed(0)} MiB + daemon ${result.daemonPeakRssMiB.toFixed(0)} MiB`;
    result.rows.forEach((row, i) => {
      table.push([
        i === 0 ? name : '',
        row.measure,
        row.result,
        row.reference,
        row.ratio,
        i === 0 ? `${result.wallS.toFixed(1)} s` : '',
        i === 0 ? rss : '',
      ]);
    });
  }
  const widths = header.map((h, c) => Math.max(h.length, ...table.map((r) => r[c]!.length)));
  const right = new Set([4, 5, 6]);
  const cell = (text: string, c: number) =>
    right.has(c) ? text.padStart(widths[c]!) : text.padEnd(widths[c]!);
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  console.log(
    `supplier-sync benchmarks${values.quick ? ' (quick sizes)' : values.scale ? ` (scale ${values.scale})` : ''} — node ${process.version}, ${availableParallelism()} CPUs, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${new Date().toISOString().slice(0, 16)}Z`,
  );
  console.log('');
  console.log(line(header));
  console.log(
    `| ${widths.map((w, c) => (right.has(c) ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`,
  );
  for (const row of table) console.log(line(row));
  console.log('');
  console.log(`total ${totalS.toFixed(1)} s`);
}
const failed = results.some((r) => typeof r.result === 'string');
process.exit(interrupted ? 130 : failed ? 1 : 0);
