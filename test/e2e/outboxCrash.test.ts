/**
 * A crash in the middle of handing orders to the ERP, as a real process
 * (test/fixtures/outbox-crash.ts) polling once and killed with SIGKILL right after its commit or
 * once the file is written under its temporary name; then the daemon starts (in this process)
 * and finishes the hand-over: each order reaches outbox/ exactly once.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import { NODE } from '../helpers/daemonProcess.ts';
import { outboxOrders } from '../helpers/outboxFiles.ts';
import { waitUntil } from '../helpers/sandbox.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const today = () => new Date().toISOString().slice(0, 10);
describe('a crash during a hand-over to the ERP', () => {
  it.each(['after-commit', 'after-temp-write'])(
    'a crash %s of a hand-over: the orders go to the ERP once, also when they left the list meanwhile',
    {
      timeout: 60_000,
    },
    async (point) => {
      let day = today();
      h = await startHarness(`outbox-${point}`, { today: () => day });
      const ready = h.sim.store
        .allShipments()
        .filter((s) => s.status === 'pending' && s.ship_by === day)
        .map((s) => s.order_number)
        .sort();
      // A real process polls once and is killed at the crash point.
      const child = spawn(
        NODE,
        [
          join(import.meta.dirname, '..', 'fixtures', 'outbox-crash.ts'),
          h.box.dataDir,
          h.sim.baseUrl,
          point,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      const exit = await new Promise<string | number | null>((r) =>
        child.once('exit', (code, signal) => r(signal ?? code)),
      );
      expect(exit).toBe('SIGKILL');
      expect(outboxOrders(h.box.dataDir)).toEqual([]);
      // The next day: these orders are no longer on the ready-to-ship list.
      day = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      await h.start();
      await waitUntil(() => ready.every((o) => outboxOrders(h.box.dataDir).includes(o)), {
        timeoutMs: 20_000,
        message: 'the interrupted hand-over finished',
      });
      await h.daemon!.waitFor((l) => l.event === 'shipments.polled', 15_000);
      const handed = outboxOrders(h.box.dataDir);
      for (const o of ready) expect(handed.filter((x) => x === o)).toHaveLength(1);
      // No temporary file left (the next day's own hand-over may be finishing: wait for it).
      await waitUntil(
        () => readdirSync(join(h.box.dataDir, 'outbox')).every((f) => !f.startsWith('.')),
        { timeoutMs: 10_000, message: 'no temporary file in outbox/' },
      );
      expect(h.daemon!.lines.some((l) => l.event === 'shipments.export_recovered')).toBe(true);
    },
  );
});
