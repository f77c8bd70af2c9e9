import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';

/** The flags every benchmark takes, parsed. */
export interface BenchArgs {
  /** Size factor: 1 = the reported sizes. `--quick` is `--scale 0.1` unless a scale is given. */
  readonly scale: number;
  readonly quick: boolean;
  /** Also print the BENCH_RESULT line for bench/run.ts. */
  readonly json: boolean;
  /** The benchmark's own options. */
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
}

const COMMON: ParseArgsOptionsConfig = {
  quick: { type: 'boolean', default: false },
  scale: { type: 'string' },
  json: { type: 'boolean', default: false },
};

/** Parses `--quick`, `--scale S`, `--json` and the benchmark's own options (string or boolean). */
export function benchArgs(own: ParseArgsOptionsConfig = {}): BenchArgs {
  const { values } = parseArgs({ options: { ...COMMON, ...own } });
  const v = values as Record<string, string | boolean | undefined>;
  const quick = v.quick === true;
  const scale = v.scale === undefined ? (quick ? 0.1 : 1) : Number(v.scale);
  if (!Number.isFinite(scale) || scale <= 0 || scale > 1) {
    throw new Error('--scale must be a number in (0, 1]');
  }
  return { scale, quick, json: v.json === true, values: v };
}

/** A whole number from a flag when given, else `full` scaled (at least `min`). */
export function sized(flag: unknown, full: number, scale: number, min = 1): number {
  if (flag !== undefined) {
    const n = Number(flag);
    if (!Number.isInteger(n) || n < min) {
      throw new Error(`expected a whole number ≥ ${min}, got ${String(flag)}`);
    }
    return n;
  }
  return Math.max(min, Math.round(full * scale));
}
