import { performance } from 'node:perf_hooks';
import type { Logger } from '../log/logger.ts';

/**
 * Giving memory back once the daemon is idle. Start-up (and any large file) grows V8's young
 * generation to its cap (`--max-semi-space-size`) and leaves garbage in the old one; V8's own
 * memory reducer gives it back only after about 100 s of a quiet heap, and not at all while its
 * allocation figures are those of the start. A full collection that shrinks the heap, when the
 * event loop has been idle and the heap has grown since the last one, brings an idle daemon from
 * about 120 MiB to about 100 (docs/benchmarks.md, "Density"). It needs Node's `--expose-gc`
 * (src/cli/nodeFlags.ts); without it (tests in-process) nothing is done.
 */
export interface CompactionPolicy {
  /** How often the daemon looks, ms. */
  readonly everyMs: number;
  /** Event-loop utilisation over the last look under which the daemon counts as idle (0–1). */
  readonly idleUtilisation: number;
  /** Growth of the heap since the last compaction that makes another worth its pause, bytes. */
  readonly minGrowthBytes: number;
  /** The least time between two compactions, ms. */
  readonly minGapMs: number;
}

export const COMPACTION: CompactionPolicy = {
  everyMs: 10_000,
  idleUtilisation: 0.05,
  minGrowthBytes: 8 * 1024 * 1024,
  minGapMs: 60_000,
};

/** What one look sees. */
export interface CompactionState {
  readonly now: number;
  /** Event-loop utilisation since the last look (0–1). */
  readonly utilisation: number;
  /** V8's heap now (heapTotal), bytes. */
  readonly heapBytes: number;
  /** The heap after the last compaction, bytes; undefined before the first. */
  readonly heapAfterLast: number | undefined;
  /** When the last compaction ran; undefined before the first. */
  readonly lastAt: number | undefined;
  /**
   * Whether a look since the last compaction found the loop busy (a file read, a sync, a
   * catalogue page): what that work left behind is given back once the loop is idle again, even
   * when the heap's own size hardly grew (the young generation, buffers outside the heap).
   */
  readonly workedSinceLast?: boolean;
}

/**
 * Whether to compact now: idle, after work or growth of the heap since the last time, and not
 * too soon after it. (A compaction while the daemon waited for its inbox to settle at the start
 * would otherwise be the last one after a first sync that grew the heap by less than
 * `minGrowthBytes`: its idle memory then stayed some MiB above what it gives back.)
 */
export function compactionDue(s: CompactionState, p: CompactionPolicy = COMPACTION): boolean {
  if (s.utilisation >= p.idleUtilisation) return false;
  if (s.lastAt !== undefined && s.now - s.lastAt < p.minGapMs) return false;
  if (s.heapAfterLast === undefined || s.workedSinceLast === true) return true;
  return s.heapBytes - s.heapAfterLast >= p.minGrowthBytes;
}

type Gc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** Looks every `everyMs` and compacts when due; stops with the daemon. */
export function startIdleCompaction(opts: {
  readonly log: Logger;
  readonly now: () => number;
  readonly policy?: CompactionPolicy;
  /** Memory outside V8's heap given back with it (state.db's page cache). */
  readonly alsoRelease?: () => void;
}): { stop(): void } {
  const gc = (globalThis as { gc?: Gc }).gc;
  if (typeof gc !== 'function') return { stop() {} };
  const policy = opts.policy ?? COMPACTION;
  let elu = performance.eventLoopUtilization();
  let heapAfterLast: number | undefined;
  let lastAt: number | undefined;
  let workedSinceLast = false;
  const timer = setInterval(() => {
    const since = performance.eventLoopUtilization(elu);
    elu = performance.eventLoopUtilization();
    const before = process.memoryUsage();
    const state = {
      now: opts.now(),
      utilisation: since.utilization,
      heapBytes: before.heapTotal,
      heapAfterLast,
      lastAt,
      workedSinceLast,
    };
    if (since.utilization >= policy.idleUtilisation) workedSinceLast = true;
    if (!compactionDue(state, policy)) return;
    const t = performance.now();
    // Several full collections that shrink every space to what is live (V8's "last resort").
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    opts.alsoRelease?.();
    const ms = Math.round(performance.now() - t);
    const after = process.memoryUsage();
    heapAfterLast = after.heapTotal;
    lastAt = opts.now();
    workedSinceLast = false;
    // The look after this one measures from here: the collection itself is not work.
    elu = performance.eventLoopUtilization();
    const mib = (n: number) => Math.round((n / 1048576) * 10) / 10;
    opts.log.debug(
      {
        event: 'memory.compacted',
        ms,
        heapMiB: mib(after.heapTotal),
        freedMiB: mib(before.heapTotal - after.heapTotal),
        rssMiB: mib(after.rss),
      },
      `idle: heap compacted to ${mib(after.heapTotal)} MiB in ${ms} ms`,
    );
  }, policy.everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
