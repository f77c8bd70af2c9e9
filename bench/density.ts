/**
 * Density benchmark (#31 point 5): many suppliers, one daemon each, on one Redis — what an idle
 * daemon costs and how a fleet converges.
 *
 * N daemons (20) run as child processes, each against its own simulator (its own account, budget
 * and token) in this process, all on one private redis-server, dist/ built first. Half of them
 * start as the image runs them (`node <DAEMON_NODE_FLAGS> dist/cli/main.js run`), the other half
 * as a unit file or a container command of one's own might (`node dist/cli/main.js run`, no flags:
 * the daemon re-executes itself with them, src/cli/relaunch.ts); `--launch flags|plain` starts
 * all one way. Measured:
 * - each daemon's memory from /proc once all have started, and again after idling (by then V8's
 *   memory reducer has run: it waits ~100 s for a quiet heap): VmRSS, its private part (RssAnon)
 *   and PSS (shared pages — the node binary's — divided between the daemons sharing them);
 * - the Redis connections per supplier (CLIENT LIST, by the daemons' connection names PREFIX:…);
 * - Redis memory per supplier (INFO used_memory, idle fleet minus the empty server, ÷ N);
 * - one file dropped into every inbox at once: the time until every portal holds every row;
 * - the floor under an idle daemon's memory, measured beside it: Node alone, and Node with the
 *   packages an idle daemon has loaded (bench/lib/libraryFloor.mjs), both with the daemon's flags;
 * - what the fleet costs the machine: the growth of the memory the kernel cannot take back
 *   (/proc/meminfo: anonymous pages, shared memory, page tables, kernel stacks, unreclaimable
 *   slab) from before the first daemon starts to the idle fleet, less this process's own growth
 *   (the simulators answering), ÷ N; and the drop of MemAvailable, which also moves with the
 *   page cache of whatever else runs. Each page counted once, as the node that holds a hundred
 *   suppliers sees them (VmRSS counts the node binary's pages in every daemon that maps them).
 *
 * With --http each daemon also serves HTTP (HTTP_PORT: /healthz, /metrics, the console), as the
 * Kubernetes manifests run it.
 *
 *   node bench/density.ts [--daemons 20] [--idle-s 150] [--rows 100] [--http] [--launch both|flags|plain] [--no-build] [--quick | --scale S] [--json]
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DAEMON_NODE_ENV, DAEMON_NODE_FLAGS } from '../src/cli/nodeFlags.ts';
import { startRedisServer } from '../src/demo/redisServer.ts';
import { type Simulator, startSimulator } from '../src/simulator/index.ts';
import { seededSku } from '../src/simulator/seed.ts';
import { benchArgs, sized } from './lib/args.ts';
import { cleanupAll, onCleanup } from './lib/cleanup.ts';
import {
  clientNames,
  machineMemory,
  type ProcMemory,
  procCpuSeconds,
  procMemory,
  redisUsedMemory,
} from './lib/procMemory.ts';
import { emitResult, fmtRatio, median, peakRssMiB } from './lib/result.ts';

const ROOT = join(import.meta.dirname, '..');
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const MAIN = join(ROOT, 'dist', 'cli', 'main.js');
/** The contract's bounds (product.md, "Many suppliers"): an idle daemon's own (anonymous) memory. */
const MEMORY_LIMIT_MIB = 56;
const CONNECTION_LIMIT = 4;

const args = benchArgs({
  daemons: { type: 'string' },
  'idle-s': { type: 'string' },
  rows: { type: 'string' },
  'no-build': { type: 'boolean', default: false },
  http: { type: 'boolean', default: false },
  launch: { type: 'string', default: 'both' },
});
const launch = String(args.values.launch);
if (!['both', 'flags', 'plain'].includes(launch)) throw new Error('--launch: both, flags or plain');
const http = args.values.http === true;
const count = sized(args.values.daemons, 20, args.quick ? 0.2 : args.scale, 2);
const idleS = sized(args.values['idle-s'], 150, args.quick ? 0.15 : args.scale, 5);
const rows = sized(args.values.rows, 100, 1, 1);

const started = performance.now();
const load: number[][] = [loadavg()];

if (args.values['no-build'] !== true) {
  // The daemon as the image runs it: compiled JavaScript, not TypeScript stripped at load.
  const build = spawnSync(
    NODE,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
  if (build.status !== 0) throw new Error('could not build dist/ (tsc -p tsconfig.build.json)');
}

interface Supplier {
  readonly index: number;
  /** Started with Node's flags on its command line, or without them (it re-executes itself). */
  readonly withFlags: boolean;
  readonly prefix: string;
  readonly dataDir: string;
  readonly sim: Simulator;
  child?: ChildProcess;
  exited?: Promise<unknown>;
}

const root = mkdtempSync(join(tmpdir(), 'supplier-sync-bench-density-'));
const redis = await startRedisServer();
const suppliers: Supplier[] = [];
onCleanup(async () => {
  await Promise.all(
    suppliers.map(async (s) => {
      if (s.child && s.child.exitCode === null && s.child.signalCode === null) {
        s.child.kill('SIGTERM');
        const timer = setTimeout(() => s.child?.kill('SIGKILL'), 10_000);
        await s.exited;
        clearTimeout(timer);
      }
      await s.sim.close();
    }),
  );
  await redis.stop();
  rmSync(root, { recursive: true, force: true });
});

/** A TCP port free now on 127.0.0.1. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** A floor process (bench/lib/libraryFloor.mjs), once it has loaded what it loads. */
async function startFloor(bare: boolean): Promise<ChildProcess> {
  const child = spawn(
    NODE,
    [
      ...DAEMON_NODE_FLAGS,
      join(import.meta.dirname, 'lib', 'libraryFloor.mjs'),
      ...(bare ? ['bare'] : []),
    ],
    { env: { ...process.env, ...DAEMON_NODE_ENV }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  onCleanup(() => {
    child.kill('SIGKILL');
  });
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', () => resolve());
    child.once('exit', (code) => reject(new Error(`floor process exited with ${code}`)));
  });
  return child;
}

/** Starts supplier i's daemon; resolves once it logged daemon.started. */
async function startDaemon(s: Supplier): Promise<void> {
  const httpEnv = http ? { HTTP_PORT: String(await freePort()) } : {};
  const child = spawn(NODE, [...(s.withFlags ? DAEMON_NODE_FLAGS : []), MAIN, 'run'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      NODE_ENV: 'production',
      SUPPLIER_API_URL: s.sim.baseUrl,
      SUPPLIER_EMAIL: 'supplier@example.com',
      SUPPLIER_PASSWORD: 'demo-password',
      REDIS_URL: redis.url,
      SYNC_QUEUE_PREFIX: s.prefix,
      SYNC_DATA_DIR: s.dataDir,
      LOG_LEVEL: 'info',
      ...(s.withFlags ? DAEMON_NODE_ENV : {}),
      ...httpEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  s.child = child;
  s.exited = new Promise((r) => child.once('exit', r));
  createInterface({ input: child.stderr! }).on('line', (l) =>
    console.error(`[daemon ${s.index}] ${l}`),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`daemon ${s.index} did not start`)), 120_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('"event":"daemon.started"')) {
        clearTimeout(timer);
        resolve();
      } else if (/"level":"(error|fatal)"/.test(line)) {
        console.error(`[daemon ${s.index}] ${line}`);
      }
    });
    child.once('exit', (code) => reject(new Error(`daemon ${s.index} exited with ${code}`)));
  });
}

/** VmRSS = private + file-backed, MiB. */
const fmtMemory = (m: ProcMemory | undefined) =>
  m === undefined
    ? 'unknown'
    : `${m.rss.toFixed(1)} = ${m.anon.toFixed(1)} + ${m.file.toFixed(1)} MiB`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const memories = () => suppliers.map((s) => procMemory(s.child!.pid!)).filter((m) => !!m);
const stat = (ms: readonly ProcMemory[], k: keyof ProcMemory) => ({
  median: median(ms.map((m) => m[k])),
  max: Math.max(...ms.map((m) => m[k])),
});

try {
  const redisEmpty = await redisUsedMemory(redis.url);
  for (let i = 0; i < count; i++) {
    const dataDir = join(root, `supplier-${i}`);
    mkdirSync(dataDir);
    suppliers.push({
      index: i,
      withFlags: launch === 'flags' || (launch === 'both' && i % 2 === 0),
      prefix: `density-${i}`,
      dataDir,
      sim: await startSimulator({ products: 200, seed: i + 1 }),
    });
  }
  // The floor processes first, so that the machine's reading before the fleet includes them.
  const floors = { node: await startFloor(true), libraries: await startFloor(false) };
  await sleep(3_000);
  const self = () => procMemory(process.pid)?.anon ?? Number.NaN;
  const machineBefore = { ...machineMemory(), self: self() };
  // Started a few at a time, as an orchestrator rolls out a fleet (and as two cores allow).
  const startT = performance.now();
  for (let i = 0; i < suppliers.length; i += 4) {
    await Promise.all(suppliers.slice(i, i + 4).map(startDaemon));
  }
  const startS = (performance.now() - startT) / 1000;
  console.error(`${count} daemons started in ${startS.toFixed(1)} s`);
  await sleep(15_000);
  const afterStart = memories();
  load.push(loadavg());
  console.error(`idling ${idleS} s`);
  const cpu = () => suppliers.map((s) => procCpuSeconds(s.child!.pid!));
  const cpuBefore = cpu();
  await sleep(idleS * 1000);
  const idle = memories();
  const machineIdle = { ...machineMemory(), self: self() };
  // MiB per daemon: what the machine gave, less what this process (the simulators) took.
  const selfGrew = machineIdle.self - machineBefore.self;
  const machinePerDaemon = (machineIdle.held - machineBefore.held - selfGrew) / count;
  const availablePerDaemon = (machineBefore.available - machineIdle.available - selfGrew) / count;
  const pssSum = idle.reduce((a, m) => a + m.pss, 0);
  const floor = {
    node: procMemory(floors.node.pid!),
    libraries: procMemory(floors.libraries.pid!),
  };
  // CPU an idle daemon uses (its schedules, the lanes' waits, the heartbeat), millicores.
  const idleMilliCpu = cpu().map((c, i) => ((c - cpuBefore[i]!) / idleS) * 1000);
  load.push(loadavg());

  const names = await clientNames(redis.url);
  const perSupplier = suppliers.map(
    (s) => names.filter((n) => n.startsWith(`${s.prefix}:`)).length,
  );
  const unnamed = names.length - perSupplier.reduce((a, b) => a + b, 0) - 1; // -1: this listing
  const redisIdle = await redisUsedMemory(redis.url);

  // One file each, all at once: until every portal holds every row.
  const expected = (i: number, j: number) => 1000 + i * 10 + j;
  const dropT = performance.now();
  for (const s of suppliers) {
    const body = Array.from({ length: rows }, (_, j) => `${seededSku(j)},${expected(s.index, j)}`);
    const temp = join(s.dataDir, 'inbox', '.stock.csv.tmp');
    writeFileSync(temp, `sku,stock_quantity\n${body.join('\n')}\n`);
    renameSync(temp, join(s.dataDir, 'inbox', 'stock.csv'));
  }
  const convergedAt: number[] = new Array(count).fill(Number.NaN);
  while (convergedAt.some((t) => Number.isNaN(t))) {
    if (performance.now() - dropT > 600_000) throw new Error('not converged within 10 minutes');
    for (const s of suppliers) {
      if (!Number.isNaN(convergedAt[s.index]!)) continue;
      const done = Array.from({ length: rows }, (_, j) => j).every(
        (j) => s.sim.store.factoryStock(seededSku(j))?.stock_quantity === expected(s.index, j),
      );
      if (done) convergedAt[s.index] = (performance.now() - dropT) / 1000;
    }
    await sleep(100);
  }
  const convergeS = Math.max(...convergedAt);
  const afterWork = memories();
  const redisWorked = await redisUsedMemory(redis.url);
  load.push(loadavg());

  const mStart = { rss: stat(afterStart, 'rss'), pss: stat(afterStart, 'pss') };
  // Each launch way's idle daemons apart, read at the same moment (a shared machine moves both).
  const idleOf = (withFlags: boolean) =>
    suppliers
      .filter((s) => s.withFlags === withFlags)
      .map((s) => idle[suppliers.indexOf(s)])
      .filter((m): m is ProcMemory => m !== undefined);
  const byLaunch = [
    { name: `\`node <flags> dist/cli/main.js run\``, ms: idleOf(true) },
    { name: '`node dist/cli/main.js run` (re-executed)', ms: idleOf(false) },
  ].filter((l) => l.ms.length > 0);
  const mIdle = {
    rss: stat(idle, 'rss'),
    anon: stat(idle, 'anon'),
    file: stat(idle, 'file'),
    pss: stat(idle, 'pss'),
  };
  const peak = stat(afterWork, 'hwm');
  const maxConn = Math.max(...perSupplier);
  const redisPerSupplierKiB = (redisIdle - redisEmpty) / count / 1024;
  const redisWorkedKiB = (redisWorked - redisEmpty) / count / 1024;
  const loads = load.map((l) => l[0]!.toFixed(1)).join(' → ');
  const f = (n: number) => n.toFixed(1);
  console.log(
    [
      `${count} daemons on one Redis${http ? ', each serving HTTP' : ''} (load average ${loads}, 2 figures: median / max)`,
      `  started in ${f(startS)} s`,
      `  15 s after start: VmRSS ${f(mStart.rss.median)} / ${f(mStart.rss.max)} MiB, PSS ${f(mStart.pss.median)} / ${f(mStart.pss.max)} MiB`,
      `  idle (${idleS} s more): VmRSS ${f(mIdle.rss.median)} / ${f(mIdle.rss.max)} MiB = private ${f(mIdle.anon.median)} + file-backed ${f(mIdle.file.median)}; PSS ${f(mIdle.pss.median)} / ${f(mIdle.pss.max)} MiB`,
      ...byLaunch.map(
        (l) =>
          `    started as ${l.name}: private (anonymous) ${f(stat(l.ms, 'anon').median)} / ${f(stat(l.ms, 'anon').max)} MiB (${l.ms.length} daemons)`,
      ),
      `  the machine (simulators' growth taken out): ${f(machinePerDaemon)} MiB per daemon it cannot take back, MemAvailable ${f(availablePerDaemon)} MiB lower per daemon; PSS summed ${f(pssSum)} MiB = ${f(pssSum / count)} per daemon`,
      `  floor beside them: Node alone ${fmtMemory(floor.node)}; Node with the packages an idle daemon loads ${fmtMemory(floor.libraries)}`,
      `  idle CPU per daemon: ${f(median(idleMilliCpu))} / ${f(Math.max(...idleMilliCpu))} millicores`,
      `  Redis connections per supplier: ${perSupplier.join(' ')} (others unnamed: ${unnamed})`,
      `  Redis memory per supplier: ${f(redisPerSupplierKiB)} KiB idle, ${f(redisWorkedKiB)} KiB after a file`,
      `  one ${rows}-row file each, all at once: every portal converged in ${f(convergeS)} s (median supplier ${f(median(convergedAt))} s); peak VmRSS ${f(peak.median)} / ${f(peak.max)} MiB`,
    ].join('\n'),
  );
  const ref = `≤ ${MEMORY_LIMIT_MIB} MiB`;
  const ok = (v: number, limit: number) => (v <= limit ? 'within' : 'OVER');
  emitResult({
    name: 'density',
    wallS: (performance.now() - started) / 1000,
    peakRssMiB: peakRssMiB(),
    daemonPeakRssMiB: peak.max,
    rows: [
      {
        measure: `${count} daemons${http ? ' with HTTP' : ''} idle ${idleS} s: its own (anonymous) memory per daemon (median / max)`,
        result: `${f(mIdle.anon.median)} / ${f(mIdle.anon.max)} MiB`,
        reference: ref,
        ratio: ok(mIdle.anon.max, MEMORY_LIMIT_MIB),
      },
      ...byLaunch.map((l) => ({
        measure: `  of which started as ${l.name} (${l.ms.length})`,
        result: `${f(stat(l.ms, 'anon').median)} / ${f(stat(l.ms, 'anon').max)} MiB`,
        reference: ref,
        ratio: ok(stat(l.ms, 'anon').max, MEMORY_LIMIT_MIB),
      })),
      {
        measure: `${count} daemons${http ? ' with HTTP' : ''} idle ${idleS} s: PSS per daemon (median / max)`,
        result: `${f(mIdle.pss.median)} / ${f(mIdle.pss.max)} MiB`,
        reference: '',
        ratio: '',
      },
      {
        measure: `what the idle fleet costs the machine, per daemon (memory it cannot take back, ÷ ${count})`,
        result: `${f(machinePerDaemon)} MiB`,
        reference: ref,
        ratio: ok(machinePerDaemon, MEMORY_LIMIT_MIB),
      },
      {
        measure: 'idle: VmRSS per daemon = private + file-backed (median)',
        result: `${f(mIdle.rss.median)} = ${f(mIdle.anon.median)} + ${f(mIdle.file.median)} MiB`,
        reference: '',
        ratio: '',
      },
      {
        measure:
          'floor: Node with the packages an idle daemon loads, nothing run (VmRSS = private + file-backed)',
        result: fmtMemory(floor.libraries),
        reference: `Node alone ${fmtMemory(floor.node)}`,
        ratio: floor.libraries === undefined ? '' : fmtRatio(mIdle.rss.median, floor.libraries.rss),
      },
      {
        measure: '15 s after start: VmRSS per daemon (median / max)',
        result: `${f(mStart.rss.median)} / ${f(mStart.rss.max)} MiB`,
        reference: '',
        ratio: '',
      },
      {
        measure: 'idle: CPU per daemon (median / max)',
        result: `${f(median(idleMilliCpu))} / ${f(Math.max(...idleMilliCpu))} millicores`,
        reference: '',
        ratio: '',
      },
      {
        measure: 'Redis connections per supplier (max)',
        result: String(maxConn),
        reference: `≤ ${CONNECTION_LIMIT}`,
        ratio: ok(maxConn, CONNECTION_LIMIT),
      },
      {
        measure: 'Redis memory per supplier, idle / after a file',
        result: `${f(redisPerSupplierKiB)} / ${f(redisWorkedKiB)} KiB`,
        reference: '',
        ratio: '',
      },
      {
        measure: `one ${rows}-row file per supplier, all at once: all ${count} converged`,
        result: `${f(convergeS)} s`,
        reference: `median supplier ${f(median(convergedAt))} s`,
        ratio: '',
      },
    ],
    data: {
      count,
      http,
      launch: suppliers.map((s) => (s.withFlags ? 'flags' : 'plain')),
      idleS,
      rows,
      load,
      startS,
      afterStart,
      idle,
      idleMilliCpu,
      afterWork,
      floor,
      machine: {
        before: machineBefore,
        idle: machineIdle,
        perDaemon: machinePerDaemon,
        availablePerDaemon,
        pssSum,
      },
      perSupplier,
      unnamed,
      redis: { empty: redisEmpty, idle: redisIdle, afterWork: redisWorked },
      convergedAt,
    },
  });
} finally {
  await cleanupAll();
}
