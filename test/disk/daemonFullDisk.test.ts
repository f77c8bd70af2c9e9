/**
 * A full disk under a running daemon (#40 point 2), on a real small disk: SYNC_DATA_DIR on an
 * 8 MiB tmpfs, filled with a file while the daemon runs, then freed. What the review found:
 * `/healthz` said "last heartbeat 64 s ago" with `stateDb: ok`, `status` said the daemon was not
 * running while it ran, no notification went out. Now the full disk is named everywhere, a
 * NEEDS A PERSON notification is sent directly, nothing is lost, and work resumes by itself
 * within a minute of space returning.
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateDb } from '../../src/state/db.ts';
import { KeyValueStore } from '../../src/state/kv.ts';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import {
  canMountSmallDisk,
  mountSmallDisk,
  SMALL_DISK_SKIPPED,
  type SmallDisk,
} from '../helpers/smallDisk.ts';
import { type Receiver, startReceiver } from '../helpers/webhookReceiver.ts';
import { freePort } from '../setup/redis.ts';

const MiB = 1024 * 1024;
const SECRET = 'disk-full-webhook-secret';

let h: Harness | undefined;
let disk: SmallDisk | undefined;
let receiver: Receiver | undefined;
let secretFile: string | undefined;
afterEach(async () => {
  if (secretFile !== undefined) rmSync(secretFile, { force: true });
  secretFile = undefined;
  disk?.free();
  await h?.stop();
  disk?.unmount();
  await h?.cleanup();
  await receiver?.close();
  h = undefined;
  disk = undefined;
  receiver = undefined;
});

/** Every file under `dir` of zero bytes, but the two that are empty by design. */
function emptyFiles(dir: string): string[] {
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) => {
      const p = join(d, e.name);
      if (e.isDirectory()) return walk(p);
      return statSync(p).size === 0 ? [p.slice(dir.length + 1)] : [];
    });
  return walk(dir).filter((p) => p !== 'writer.lock' && p !== 'requests.wake');
}

/** Hidden temporary files (`.name.xxxx.tmp`) anywhere under `dir`. */
function tempFiles(dir: string): string[] {
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(d, e.name)) : /^\..*\.tmp$/.test(e.name) ? [e.name] : [],
    );
  return walk(dir);
}

describe.skipIf(!canMountSmallDisk)(
  `a full disk under a running daemon${SMALL_DISK_SKIPPED}`,
  () => {
    it('is named by status, health, /healthz and the console, notified at once, and left behind within a minute of space returning', async () => {
      receiver = await startReceiver(SECRET);
      secretFile = join(tmpdir(), `supplier-sync-disk-secret-${process.pid}`);
      writeFileSync(secretFile, SECRET);
      const port = await freePort();
      h = await startHarness(
        'disk-daemon',
        { products: 50 },
        {
          HTTP_PORT: String(port),
          NOTIFY_WEBHOOK_URL: receiver.url,
          NOTIFY_WEBHOOK_SECRET_FILE: secretFile,
          NOTIFY_RETRY_BASE_MS: '200',
        },
      );
      const dataDir = h.box.dataDir;
      disk = mountSmallDisk(dataDir, 8 * MiB);
      const d = await h.start();
      const get = async (path: string) => {
        const res = await fetch(`http://127.0.0.1:${port}${path}`);
        return { status: res.status, text: await res.text() };
      };

      h.drop('first.csv', factoryCsv([[seededSku(0), 11]]));
      await waitUntil(() => h!.sim.store.factoryStock(seededSku(0))?.stock_quantity === 11, {
        timeoutMs: 30_000,
        message: 'the first file on the portal',
      });
      // The ERP's next file is written while there is room, and renamed in once the disk is full.
      const hidden = join(dataDir, 'inbox', '.second.csv.tmp');
      writeFileSync(hidden, factoryCsv([[seededSku(1), 22]]));

      // The heartbeat in state.db is made old, state.db's log cut to nothing, and the disk filled:
      // from now on no write of state.db finds room, and the heartbeat there stays old.
      const side = openStateDb(join(dataDir, 'state.db'));
      const oldBeat = Date.now() - 5 * 60_000;
      try {
        side.pragma('wal_checkpoint(TRUNCATE)');
        new KeyValueStore(side).set('daemon.heartbeat', {
          at: oldBeat,
          pid: 1,
          startedAt: oldBeat,
        });
        disk.fill();
      } finally {
        side.close();
      }
      renameSync(hidden, join(dataDir, 'inbox', 'second.csv'));
      await d.runNow('heartbeat');
      const full = await d.waitForEvent('disk.full');
      expect(full).toMatchObject({ level: 'error', path: dataDir, freeBytes: expect.any(Number) });
      expect(full.freeBytes as number).toBeLessThan(MiB);
      // Work that meets the full disk waits for it, file and all.
      await d.runNow('inbox-scan');

      // status: NEEDS A PERSON for the disk, naming it; never "not running", though the heartbeat
      // in state.db is five minutes old.
      const status = await h.cli(['status']);
      expect(status.code).toBe(0);
      const first = status.stdout.split('\n')[0]!;
      expect(first).toMatch(
        new RegExp(`^supplier-sync: NEEDS A PERSON: the disk holding ${dataDir} is full \\(`),
      );
      expect(status.stdout).toMatch(/^disk {11}FULL: /m);
      expect(status.stdout).not.toMatch(/not running/);
      const statusJson = await h.statusJson();
      expect(statusJson.disk).toMatchObject({ path: dataDir, full: true });

      // health: not ready (exit 1), the disk first; --live: the process answers (exit 0).
      const health = await h.cli(['health', '--json']);
      expect(health.code).toBe(1);
      const report = JSON.parse(health.stdout);
      expect(report.disk).toMatchObject({
        path: dataDir,
        full: true,
        freeBytes: expect.any(Number),
      });
      expect(report.problems[0]).toMatch(new RegExp(`^disk: the disk holding ${dataDir} is full`));
      expect(report.problems.join('; ')).not.toMatch(/heartbeat/);
      const live = await h.cli(['health', '--live']);
      expect(live.code, live.output).toBe(0);
      expect(live.stdout).toMatch(/^live: the daemon's heartbeat is \d+ s old/);

      // /healthz and the console say the same.
      const healthz = await get('/healthz');
      expect(healthz.status).toBe(503);
      const hz = JSON.parse(healthz.text);
      expect(hz.disk).toMatchObject({ path: dataDir, full: true });
      expect(hz.problems.join('; ')).not.toMatch(/heartbeat/);
      // A liveness probe over HTTP finds the process answering: no restart for a full disk.
      const livez = await get('/livez');
      expect(livez.status).toBe(200);
      expect(JSON.parse(livez.text)).toMatchObject({ live: true, disk: { full: true } });
      await waitUntil(
        async () => {
          await d.runNow('metrics'); // read now, as its timer would next
          return /^supplier_sync_disk_full\{path=".*"\} 1$/m.test((await get('/metrics')).text);
        },
        {
          timeoutMs: 15_000,
          message: 'supplier_sync_disk_full 1 on /metrics',
        },
      );
      const page = await get('/');
      expect(page.status).toBe(200);
      expect(page.text).toContain('NEEDS A PERSON');
      expect(page.text).toContain(`the disk holding ${dataDir} is full`);

      // The NEEDS A PERSON notification went out directly, signed, though the outbox cannot be written.
      await waitUntil(() => receiver!.delivered().length >= 1, {
        timeoutMs: 15_000,
        message: 'the direct notification',
      });
      const told = receiver.delivered()[0]!;
      expect(told.signatureOk).toBe(true);
      expect(told.json).toMatchObject({
        event: 'status.verdict',
        details: {
          verdict: 'needs a person',
          needsPerson: true,
          disk: { path: dataDir, full: true },
        },
      });
      expect(told.json.text).toMatch(/^supplier-sync NEEDS A PERSON: the disk holding /);
      expect(d.lines.find((l) => l.event === 'notify.delivered')).toMatchObject({ direct: true });
      // The file waits in inbox/, nothing of it applied, nothing left half written.
      expect(readdirSync(join(dataDir, 'inbox'))).toEqual(['second.csv']);
      expect(emptyFiles(dataDir)).toEqual([]);

      // Space returns: work resumes by itself within a minute, and the disk is said to be fine.
      disk.free();
      const freedAt = Date.now();
      await waitUntil(() => h!.sim.store.factoryStock(seededSku(1))?.stock_quantity === 22, {
        timeoutMs: 60_000,
        message: 'the second file on the portal after space returned',
      });
      await waitUntil(
        async () => {
          await d.runNow('heartbeat');
          return d.lines.some((l) => l.event === 'disk.ok');
        },
        { timeoutMs: 60_000, intervalMs: 1000, message: 'disk.ok' },
      );
      const resumedMs = Date.now() - freedAt;
      expect(resumedMs).toBeLessThan(60_000);
      expect(d.lines.find((l) => l.event === 'disk.ok')).toMatchObject({
        level: 'info',
        path: dataDir,
      });

      // The notification sent directly is recorded, and the turn back is told through the outbox.
      await waitUntil(
        async () => {
          await d.runNow('notifications');
          return receiver!.delivered().some((r) => r.json.details?.needsPerson === false);
        },
        { timeoutMs: 30_000, intervalMs: 500, message: 'the verdict back from NEEDS A PERSON' },
      );
      const verdicts = receiver.delivered().map((r) => r.json.details.needsPerson);
      expect(verdicts).toEqual([true, false]);
      const db = openStateDb(join(dataDir, 'state.db'));
      try {
        const delivered = db
          .prepare(
            "SELECT count FROM notify_totals WHERE event = 'status.verdict' AND outcome = 'delivered'",
          )
          .pluck()
          .get();
        expect(delivered).toBe(2);
      } finally {
        db.close();
      }

      const after = await h.statusJson();
      expect(after.disk).toMatchObject({ path: dataDir, full: false });
      expect(after.health.reasons.join('; ')).not.toMatch(/disk/);
      expect((await h.cli(['health'])).code).toBe(0);
      // Nothing lost, nothing left behind.
      expect(readdirSync(join(dataDir, 'processed')).sort()).toEqual([
        expect.stringMatching(/-first\.csv$/),
        expect.stringMatching(/-first\.csv\.report\.json$/),
        expect.stringMatching(/-second\.csv$/),
        expect.stringMatching(/-second\.csv\.report\.json$/),
      ]);
      expect(emptyFiles(dataDir)).toEqual([]);
      expect(tempFiles(dataDir)).toEqual([]);
      expect(
        existsSync(join(dataDir, 'staging')) ? readdirSync(join(dataDir, 'staging')) : [],
      ).toEqual([]);
    });
  },
);
