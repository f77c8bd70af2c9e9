import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';

/** A process's memory from /proc, MiB. */
export interface ProcMemory {
  /** Resident set (VmRSS): private pages and every file page mapped, shared or not. */
  readonly rss: number;
  /** Its private part (RssAnon): the JS heap, malloc, stacks. */
  readonly anon: number;
  /** Its file-backed part (RssFile): the node binary's pages, libraries; shared between processes. */
  readonly file: number;
  /** Proportional set size: each shared page divided by the processes sharing it. */
  readonly pss: number;
  /** Peak resident set so far (VmHWM). */
  readonly hwm: number;
}

const kib = (text: string, key: string): number => {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) / 1024 : Number.NaN;
};

/** The memory of process `pid`; undefined where /proc does not tell (not Linux, process gone). */
export function procMemory(pid: number): ProcMemory | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return {
      rss: kib(status, 'VmRSS'),
      anon: kib(status, 'RssAnon'),
      file: kib(status, 'RssFile'),
      pss: kib(rollup, 'Pss'),
      hwm: kib(status, 'VmHWM'),
    };
  } catch {
    return undefined;
  }
}

/** CPU seconds process `pid` has used (user + system, /proc/PID/stat); NaN where unknown. */
export function procCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is the 3rd, utime the 14th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** The connections CLIENT LIST shows, by name. */
export async function clientNames(redisUrl: string): Promise<string[]> {
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    return String(await client.client('LIST'))
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => /(?:^| )name=(\S*)/.exec(l)?.[1] ?? '');
  } finally {
    client.disconnect();
  }
}

/** Redis's `used_memory` (INFO memory), bytes. */
export async function redisUsedMemory(redisUrl: string): Promise<number> {
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const info = await client.info('memory');
    return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
  } finally {
    client.disconnect();
  }
}

/** What the machine's memory holds (/proc/meminfo), MiB; NaN where /proc does not tell. */
export interface MachineMemory {
  /** What the kernel could give a new process without swapping (page cache it may drop counted in). */
  readonly available: number;
  /**
   * What it cannot take back: anonymous pages (every process's private memory, each page once),
   * shared memory, page tables, kernel stacks and unreclaimable slab (sockets among it). Unlike
   * `available`, it does not move with the page cache of what else the machine does.
   */
  readonly held: number;
}

export function machineMemory(): MachineMemory {
  try {
    const info = readFileSync('/proc/meminfo', 'utf8');
    const held = ['AnonPages', 'Shmem', 'PageTables', 'KernelStack', 'SUnreclaim']
      .map((k) => kib(info, k))
      .reduce((a, b) => a + b, 0);
    return { available: kib(info, 'MemAvailable'), held };
  } catch {
    return { available: Number.NaN, held: Number.NaN };
  }
}
