/**
 * The floor under an idle daemon's memory (bench/density.ts): a process started with the
 * daemon's Node flags that only loads what an idle daemon has loaded — the runtime packages
 * below, by the entry points the daemon imports — and then idles, compacted once as the daemon
 * compacts itself (src/daemon/compaction.ts). Nothing is connected or run: no daemon built on
 * these packages can sit below this. With `bare` it loads nothing: Node itself.
 *
 *   node <DAEMON_NODE_FLAGS> bench/lib/libraryFloor.mjs [bare]
 *
 * Prints `ready` once loaded; runs until killed. Plain JavaScript, as the daemon runs from dist/:
 * a .ts file would have Node load its type stripper too, which the daemon never does.
 */
const bare = process.argv[2] === 'bare';

if (!bare) {
  // The packages an idle daemon has loaded (its module list, read with a load hook, 2026-11-29):
  // the portal client, the queues, the state, the schedules, the watcher, the logs, the config's
  // schemas and the CSV reader. Not loaded until used: prom-client (HTTP), yauzl, htmlparser2
  // and entities (workbooks), pino-pretty. BullMQ by the parts the daemon takes
  // (src/jobs/bullmqParts.ts), not its entry point.
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  for (const part of ['classes/queue.js', 'classes/worker.js', 'utils/create-backend.js'])
    require(`bullmq/dist/cjs/${part}`);
  await import('ioredis');
  await import('got');
  await import('pino');
  await import('zod');
  await import('chokidar');
  await import('croner');
  await import('csv-parse');
  const { default: Database } = await import('better-sqlite3');
  new Database(':memory:').close();
}

setTimeout(
  () => globalThis.gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' }),
  2_000,
);
setInterval(() => {}, 60_000);
console.log('ready');
