/**
 * Where the event loop is blocked, for the ingest benchmarks (bench/lib/ingestCase.ts,
 * bench/formats.ts): the longest block and the p99 as perf_hooks.monitorEventLoopDelay samples
 * them (10 ms resolution: the figures the benchmarks have always reported), and, to see which
 * step a block belongs to, each block longer than `minMs`:
 *
 * - its wall time, and the CPU time this thread spent in it (process.threadCpuUsage): on a
 *   machine shared with other work a block's wall time grows with the load, its CPU time much
 *   less, so the CPU time tells a long step from a starved one;
 * - with `where`, the code it ran: a CPU profile (node:inspector, one sample a millisecond) taken
 *   meanwhile, whose samples inside the block are counted by their innermost two frames in src/
 *   and the frame on top (a native call such as a statement's `run`).
 *
 * A timer ticking every TICK_MS finds the blocks: a tick later than TICK_MS + `minMs` after the
 * one before marks one. Its delay is counted, as monitorEventLoopDelay counts it. `stop()` lets
 * both timers run once more first, so that a block just before the end is counted too.
 */
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const TICK_MS = 5;

export interface LoopBlock {
  /** When it started, ms after the watch began. */
  readonly atMs: number;
  readonly wallMs: number;
  /** CPU time of this thread (user + system) during the block. */
  readonly cpuMs: number;
  /** The code it ran: `share% frames [top]`, most samples first (with `where` only). */
  readonly where?: readonly string[];
}

export interface LoopFigures {
  readonly loopMaxMs: number;
  readonly loopP99Ms: number;
  /** The longest blocks (at most `keep`), longest first. */
  readonly blocks: readonly LoopBlock[];
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A block as found: its start and end on the monotonic clock (µs, as the profile's times). */
interface Found {
  readonly startUs: number;
  readonly endUs: number;
  readonly cpuMs: number;
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const cpuMs = () => {
  const c = process.threadCpuUsage();
  return (c.user + c.system) / 1000;
};

export async function watchLoop(
  options: { minMs?: number; where?: boolean; keep?: number } = {},
): Promise<{ stop(): Promise<LoopFigures> }> {
  const minMs = options.minMs ?? 50;
  const keep = options.keep ?? 5;
  const session = options.where ? new Session() : undefined;
  if (session !== undefined) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 1000 });
    await session.post('Profiler.start');
  }
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const began = nowUs();
  const found: Found[] = [];
  let lastUs = began;
  let lastCpu = cpuMs();
  const tick = setInterval(() => {
    const us = nowUs();
    const cpu = cpuMs();
    if (us - lastUs > (TICK_MS + minMs) * 1000) {
      found.push({ startUs: lastUs + TICK_MS * 1000, endUs: us, cpuMs: cpu - lastCpu });
    }
    lastUs = us;
    lastCpu = cpu;
  }, TICK_MS);
  return {
    async stop() {
      // Both watches see a block only when their timer runs after it: let them, for a block that
      // ended just before the watch does.
      await new Promise((resolve) => setTimeout(resolve, 2 * TICK_MS + 10));
      clearInterval(tick);
      delay.disable();
      const profile =
        session === undefined
          ? undefined
          : ((await session.post('Profiler.stop')) as { profile: Profile }).profile;
      session?.disconnect();
      const longest = found.sort((a, b) => b.endUs - b.startUs - (a.endUs - a.startUs));
      return {
        loopMaxMs: delay.max / 1e6,
        loopP99Ms: delay.percentile(99) / 1e6,
        blocks: longest.slice(0, keep).map((b) => ({
          atMs: Math.round((b.startUs - began) / 1000),
          wallMs: Math.round((b.endUs - b.startUs) / 100) / 10,
          cpuMs: Math.round(b.cpuMs * 10) / 10,
          ...(profile === undefined ? {} : { where: attribute(profile, b) }),
        })),
      };
    },
  };
}

/** The code a block ran: its samples counted by their innermost src/ frames and top frame. */
function attribute(profile: Profile, block: Found): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n: ProfileNode) => {
    const file = n.callFrame.url.replace(/^.*?\/(src|bench|node_modules)\//, '$1/');
    return `${n.callFrame.functionName || '(anonymous)'} ${file}:${n.callFrame.lineNumber + 1}`;
  };
  const counts = new Map<string, number>();
  let total = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    if (t < block.startUs || t > block.endUs) continue;
    total++;
    const stack: ProfileNode[] = [];
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      stack.push(byId.get(id)!);
    }
    const own = stack.filter((n) => n.callFrame.url.includes('/src/')).slice(0, 2);
    const top = own[0] === stack[0] ? '' : ` [${name(stack[0]!)}]`;
    const key = `${own.length > 0 ? own.map(name).join(' < ') : name(stack[0]!)}${top}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([key, n]) => `${Math.round((100 * n) / total)}% ${key}`);
}
