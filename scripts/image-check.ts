/**
 * Runs the built image against the simulator and checks what the product promises of it
 * (docs/deployment.md, "The image"). scripts/check-image.sh builds the image and then runs this;
 * alone: `node scripts/image-check.ts IMAGE` with the engine in IMAGE_ENGINE (default `podman`)
 * and extra `run` flags in IMAGE_RUN_FLAGS (the ulimits this kind of machine needs).
 *
 * - `supplier-sync` is a command on the image's PATH, and the image runs as a user that is not root;
 * - a fresh inbox owned by root, bind-mounted over the data volume's inbox/, stops the daemon at
 *   start with exit 78 and one line naming /data/inbox;
 * - with a fresh named volume (made by the engine, no chown by hand) and an inbox the daemon's uid
 *   owns, the daemon turns healthy (`supplier-sync health`, and the image's HEALTHCHECK), no process
 *   in the container runs as root, a file dropped into the mounted inbox reaches the portal and
 *   lands in processed/, and SIGTERM ends it with exit 0 within 10 s.
 *
 * Redis (a private redis-server, or REDIS_URL) and the simulator run on this host; the containers
 * share the host's network, so both are on 127.0.0.1. Everything it starts is removed at the end.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DAEMON_NODE_ENV, DAEMON_NODE_FLAGS } from '../src/cli/nodeFlags.ts';
import { pingRedisUrl } from '../src/daemon/healthCheck.ts';
import { freePort, startRedisServer } from '../src/demo/redisServer.ts';
import { startSimulator } from '../src/simulator/index.ts';

const run = promisify(execFile);

const image: string =
  process.argv[2] ??
  (() => {
    console.error('usage: node scripts/image-check.ts IMAGE');
    return process.exit(2);
  })();
const [engine = 'podman', ...engineArgs] = (process.env.IMAGE_ENGINE ?? 'podman').split(/\s+/);
const runFlags = (process.env.IMAGE_RUN_FLAGS ?? '').split(/\s+/).filter((f) => f !== '');
/** The image's `node` user, which the Dockerfile runs as. */
const APP_UID = 1000;

const started = Date.now();
const step = (text: string) => console.log(`check-image: ${text}`);

class CheckFailed extends Error {}
function check(ok: boolean, what: string): asserts ok {
  if (!ok) throw new CheckFailed(what);
}

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the engine with `args`; resolves with its exit code and output (never rejects on a code). */
async function engineRun(args: readonly string[], timeoutMs = 120_000): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(engine, [...engineArgs, ...args], {
      timeout: timeoutMs,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string; stderr?: string; message: string };
    if (typeof e.code !== 'number') throw new CheckFailed(`${engine} ${args[0]}: ${e.message}`);
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

async function engineOk(args: readonly string[], timeoutMs?: number): Promise<string> {
  const r = await engineRun(args, timeoutMs);
  check(r.code === 0, `${engine} ${args.join(' ')} exited ${r.code}: ${r.stderr.trim()}`);
  return r.stdout;
}

/** Polls `probe` until it returns a value, or fails naming `what` after `timeoutMs`. */
async function waitFor<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    check(Date.now() < deadline, `${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const cleanups: Array<() => Promise<unknown> | unknown> = [];
const tag = randomBytes(4).toString('hex');
const work = mkdtempSync(join(tmpdir(), 'supplier-sync-image-'));
chmodSync(work, 0o755);
cleanups.push(() => rmSync(work, { recursive: true, force: true }));

/** A named volume the engine creates (as compose and Kubernetes do), removed at the end. */
async function freshVolume(name: string): Promise<string> {
  const volume = `supplier-sync-check-${tag}-${name}`;
  await engineOk(['volume', 'create', volume]);
  cleanups.push(() => engineRun(['volume', 'rm', '--force', volume]));
  return volume;
}

function container(name: string): string {
  const id = `supplier-sync-check-${tag}-${name}`;
  cleanups.push(() => engineRun(['rm', '--force', '--time', '0', id]));
  return id;
}

async function logsOf(id: string): Promise<string> {
  const r = await engineRun(['logs', '--tail', '40', id]);
  return `${r.stdout}${r.stderr}`;
}

async function main(): Promise<void> {
  // --- the image itself ------------------------------------------------------------------------
  const user = (await engineOk(['image', 'inspect', '--format', '{{.Config.User}}', image])).trim();
  check(user !== '' && user !== 'root' && user !== '0', `the image runs as '${user || 'root'}'`);
  const onPath = await engineRun([
    'run',
    '--rm',
    ...runFlags,
    '--entrypoint',
    'sh',
    image,
    '-c',
    'command -v supplier-sync && supplier-sync --help',
  ]);
  check(onPath.code === 0, `supplier-sync is not a command on the image's PATH: ${onPath.stderr}`);
  const [where = '', ...help] = onPath.stdout.split('\n');
  check(
    help.some((l) => /^ {2}status /.test(l)),
    'supplier-sync --help does not list status',
  );
  step(`supplier-sync on the PATH (${where.trim()}); the image runs as user '${user}'`);

  // --- a fresh inbox owned by root: one line, exit 78 ------------------------------------------
  const rootInbox = join(work, 'root-inbox');
  mkdirSync(rootInbox, { mode: 0o755 });
  const refused = container('refused');
  const env = (redisUrl: string, apiUrl: string, extra: Record<string, string> = {}) =>
    Object.entries({
      SUPPLIER_API_URL: apiUrl,
      SUPPLIER_EMAIL: 'supplier@example.com',
      SUPPLIER_PASSWORD_FILE: '/run/secrets/supplier_password',
      REDIS_URL: redisUrl,
      SYNC_QUEUE_PREFIX: `image-check-${tag}`,
      ...extra,
    }).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
  const secret = join(work, 'supplier_password');
  writeFileSync(secret, 'demo-password', { mode: 0o644 });
  const mounts = (volume: string, inbox: string) => [
    '--volume',
    `${volume}:/data`,
    '--volume',
    `${inbox}:/data/inbox`,
    '--volume',
    `${secret}:/run/secrets/supplier_password:ro`,
  ];
  const r78 = await engineRun(
    // --no-healthcheck: the engine's own complaints about health timers stay off its stderr.
    [
      'run',
      '--name',
      refused,
      ...runFlags,
      '--no-healthcheck',
      '--network',
      'host',
      ...mounts(await freshVolume('refused'), rootInbox),
      ...env('redis://127.0.0.1:1', 'http://127.0.0.1:1/api/v1'),
      image,
    ],
    60_000,
  );
  const lines = r78.stderr.split('\n').filter((l) => l.trim() !== '');
  check(r78.code === 78, `a root-owned inbox: exit ${r78.code}, expected 78; ${r78.stderr}`);
  check(
    lines.length === 1 &&
      /SYNC_DATA_DIR: cannot write \/data\/inbox \(owner uid 0 /.test(lines[0]!),
    `a root-owned inbox: expected one line naming /data/inbox, got: ${r78.stderr}`,
  );
  step(`a fresh root-owned inbox: exit 78, "${lines[0]}"`);

  // --- the daemon against the simulator --------------------------------------------------------
  const redis =
    process.env.REDIS_URL &&
    (await pingRedisUrl(process.env.REDIS_URL, 1000).then(
      () => true,
      () => false,
    ))
      ? { url: process.env.REDIS_URL, stop: async () => {} }
      : await startRedisServer();
  cleanups.push(() => redis.stop());
  const simulator = await startSimulator({ products: 50, shipments: 0 });
  cleanups.push(() => simulator.close());
  const httpPort = await freePort();
  const inbox = join(work, 'inbox');
  mkdirSync(inbox, { mode: 0o755 });
  chownSync(inbox, APP_UID, APP_UID);
  const daemon = container('daemon');
  await engineOk([
    'run',
    '--detach',
    '--name',
    daemon,
    ...runFlags,
    '--network',
    'host',
    ...mounts(await freshVolume('data'), inbox),
    ...env(redis.url, simulator.baseUrl, { HTTP_PORT: String(httpPort), HTTP_HOST: '127.0.0.1' }),
    image,
  ]);
  const t0 = Date.now();
  try {
    await waitFor('supplier-sync health exits 0', 120_000, async () => {
      const h = await engineRun(['exec', daemon, 'supplier-sync', 'health'], 30_000);
      return h.code === 0 ? true : undefined;
    });
  } catch (err) {
    console.error(await logsOf(daemon));
    throw err;
  }
  const healthz = await fetch(`http://127.0.0.1:${httpPort}/healthz`);
  check(healthz.status === 200, `/healthz answered ${healthz.status}`);
  step(
    `healthy after ${((Date.now() - t0) / 1000).toFixed(1)} s (supplier-sync health; /healthz 200)`,
  );
  const hc = await engineRun(['healthcheck', 'run', daemon], 60_000);
  check(hc.code === 0, `the image's HEALTHCHECK: exit ${hc.code} ${hc.stdout}${hc.stderr}`);
  step("the image's HEALTHCHECK passes");

  const uids = await engineOk([
    'exec',
    daemon,
    'node',
    '-e',
    `
    const fs = require('node:fs');
    for (const pid of fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p) && p !== String(process.pid))) {
      try {
        const status = fs.readFileSync('/proc/' + pid + '/status', 'utf8');
        const cmd = fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').join(' ').replace(/\\s+/g, ' ').trim().slice(0, 100);
        console.log(status.match(/^Uid:\\s+(\\d+)/m)[1] + ' ' + cmd);
        if (cmd.endsWith('supplier-sync run')) {
          const env = fs.readFileSync('/proc/' + pid + '/environ', 'utf8').split('\\0');
          console.log('environ ' + env.filter((e) => ${JSON.stringify(Object.keys(DAEMON_NODE_ENV))}.includes(e.split('=')[0])).join(' '));
        }
      } catch {}
    }`,
  ]);
  const psLines = uids.trim().split('\n');
  const processes = psLines.filter((l) => !l.startsWith('environ '));
  const daemonEnv = psLines.filter((l) => l.startsWith('environ '));
  const wantedEnv = Object.entries(DAEMON_NODE_ENV).map(([k, v]) => `${k}=${v}`);
  check(
    daemonEnv.length > 0 &&
      daemonEnv.every((l) => wantedEnv.every((e) => l.split(' ').includes(e))),
    `the daemon's environment lacks ${wantedEnv.join(' ')}: ${daemonEnv.join('; ') || 'no daemon found'}`,
  );
  check(
    processes.some((p) =>
      p.endsWith(` node ${DAEMON_NODE_FLAGS.join(' ')} /usr/local/bin/supplier-sync run`),
    ),
    `no daemon process with Node's flags (${DAEMON_NODE_FLAGS.join(' ')}) among: ${uids}`,
  );
  check(
    processes.every((p) => p.startsWith(`${APP_UID} `)),
    `a process runs as another uid than ${APP_UID}: ${uids}`,
  );
  step(
    `${processes.length} processes, every one uid ${APP_UID}: ${processes.map((p) => p.slice(p.indexOf(' ') + 1)).join('; ')}`,
  );

  const position = 3;
  const sku = simulator.store.skuAt(position);
  const quantity = simulator.store.factoryQuantityAt(position) + 17;
  const name = `factory-stock-${tag}.csv`;
  writeFileSync(join(inbox, `.${name}`), `sku,stock_quantity\n${sku},${quantity}\n`);
  chownSync(join(inbox, `.${name}`), APP_UID, APP_UID);
  renameSync(join(inbox, `.${name}`), join(inbox, name));
  const t1 = Date.now();
  try {
    await waitFor(`${sku} = ${quantity} on the portal`, 90_000, async () =>
      simulator.store.factoryStock(sku)?.stock_quantity === quantity ? true : undefined,
    );
    const stored = await waitFor(`${name} in /data/processed`, 60_000, async () => {
      const ls = await engineRun(['exec', daemon, 'ls', '/data/processed', '/data/inbox']);
      const found = ls.stdout.split('\n').find((f) => f.endsWith(`-${name}`));
      return found !== undefined && !ls.stdout.split('\n').includes(name) ? found : undefined;
    });
    step(
      `${name} reached the portal (${sku} = ${quantity}) and lies in processed/ as ${stored}, ${((Date.now() - t1) / 1000).toFixed(1)} s after the drop`,
    );
  } catch (err) {
    console.error(await logsOf(daemon));
    throw err;
  }

  const t2 = Date.now();
  await engineOk(['kill', '--signal', 'TERM', daemon]);
  const waited = await engineRun(['wait', daemon], 30_000);
  const seconds = (Date.now() - t2) / 1000;
  const code = Number(waited.stdout.trim());
  check(
    code === 0,
    `after SIGTERM the container exited ${waited.stdout.trim()}${waited.stderr}, expected 0`,
  );
  check(
    seconds <= 10,
    `after SIGTERM the container took ${seconds.toFixed(1)} s to stop (at most 10)`,
  );
  step(`SIGTERM: exit 0 after ${seconds.toFixed(1)} s`);
}

let failed = false;
try {
  await main();
  step(`image checks passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
} catch (err) {
  failed = true;
  console.error(`check-image: FAILED: ${err instanceof Error ? err.message : String(err)}`);
  if (!(err instanceof CheckFailed) && err instanceof Error) console.error(err.stack);
} finally {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
}
process.exit(failed ? 1 : 0);
