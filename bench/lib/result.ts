/**
 * What a benchmark hands to bench/run.ts: one line on stdout, `BENCH_RESULT {json}`, after its own
 * human-readable output. run.ts gathers these into one table.
 */

export const RESULT_MARKER = 'BENCH_RESULT ';

/** One row of the summary table. */
export interface BenchRow {
  /** What was measured, with its size. */
  readonly measure: string;
  /** The figure (with its unit). */
  readonly result: string;
  /** What it is compared with: the floor, the theoretical minimum, the limit. */
  readonly reference: string;
  /** result ÷ reference, or another short verdict. */
  readonly ratio: string;
}

export interface BenchResult {
  readonly name: string;
  /** Whole benchmark, set-up and clean-up included. */
  readonly wallS: number;
  /** Peak RSS of the benchmark process (process.resourceUsage().maxRSS), MiB. */
  readonly peakRssMiB: number;
  /** Peak RSS of the daemon child process (VmHWM), MiB, where the benchmark runs one. */
  readonly daemonPeakRssMiB?: number | undefined;
  readonly rows: readonly BenchRow[];
  /** The raw figures, for anyone who wants more than the table. */
  readonly data: Record<string, unknown>;
}

/** Peak RSS of this process so far, MiB. */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/** Prints the result line for run.ts. */
export function emitResult(result: BenchResult): void {
  console.log(`${RESULT_MARKER}${JSON.stringify(result)}`);
}

/** Finds the result line in a benchmark's output. */
export function parseResult(output: string): BenchResult | undefined {
  const line = output
    .split('\n')
    .reverse()
    .find((l) => l.startsWith(RESULT_MARKER));
  return line === undefined
    ? undefined
    : (JSON.parse(line.slice(RESULT_MARKER.length)) as BenchResult);
}

export const fmtInt = (n: number): string => Math.round(n).toLocaleString('en-US');

export const fmtRatio = (value: number, reference: number): string =>
  reference === 0 ? (value === 0 ? '1.00×' : '∞') : `${(value / reference).toFixed(2)}×`;

/** Nearest-rank percentile of numbers (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

/** The median (mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
