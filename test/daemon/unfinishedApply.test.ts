/**
 * An apply left half merged while the daemon runs (a writer that stopped in the middle of its
 * merge) is shown by `status` and finished by the daemon's periodic check (#28.5): the 'recover'
 * schedule, every 30 s, asked for at once here.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StagingFile } from '../../src/inventory/staging/stagingFile.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import {
  attachStaged,
  detachStaged,
  mergeStagedChunk,
  recordStagedApply,
} from '../../src/state/staging/stagedApplyTable.ts';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import { freePort } from '../setup/redis.ts';

let h: Harness;
let db: StateDb | undefined;
afterEach(async () => {
  db?.close();
  db = undefined;
  await h?.cleanup();
});

const json = (output: string) => JSON.parse(output.slice(output.search(/[[{]/)));

describe('an apply left unfinished while the daemon runs', () => {
  it('status shows it, degraded once a minute old by the daemon’s clock; the periodic check finishes it', async () => {
    const port = await freePort();
    h = await startHarness('unfinished-apply', {}, { HTTP_PORT: String(port) });
    const d = await h.start();
    db = openStateDb(join(h.box.dataDir, 'state.db'));

    // A writer staged 30 keys, decided the apply now (the daemon's clock), merged 10 and stopped.
    const staging = StagingFile.create(h.box.dataDir, {
      workerAfterRows: Number.POSITIVE_INFINITY,
    });
    for (let i = 0; i < 30; i++) staging.put('factory', '', `LEFT-${i}`, 5, i + 2);
    await staging.finish();
    await staging.sync();
    staging.close();
    const state = db;
    const id = state
      .transaction(() =>
        recordStagedApply(state, {
          stagedFile: staging.name,
          source: 'snapshot',
          fileId: null,
          sourceAt: h.clock.now() - 60_000,
          appliedAt: h.clock.now(),
        }),
      )
      .immediate();
    attachStaged(state, staging.path);
    expect(mergeStagedChunk(state, id, 10).done).toBe(false);
    detachStaged(state);

    const reason =
      'an apply of snapshot is unfinished (10 keys merged): the daemon finishes it at its start and within a minute while it runs';
    const status = json((await h.cli(['status', '--json'])).output);
    expect(status.unfinishedApplies).toEqual([
      expect.objectContaining({ id, source: 'snapshot', keysMerged: 10 }),
    ]);
    // Seconds old: a merge may be in progress, no reason yet (the console reads with the daemon's clock).
    const api = async () => json(await (await fetch(`http://127.0.0.1:${port}/api/status`)).text());
    expect((await api()).health.reasons).not.toContain(reason);
    h.clock.advance(61_000);
    expect((await api()).health.reasons).toContain(reason);

    // The console's status page (read-only on loopback) says it too.
    const page = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    expect(page).toMatch(/Unfinished.*apply of snapshot decided .*10 keys merged so far/s);

    await h.runNow('recover');
    await d.waitFor((l) => l.event === 'ingest.apply_resumed' && l.applyId === id);
    const keys = state
      .prepare("SELECT COUNT(*) FROM desired_stock WHERE sku LIKE 'LEFT-%'")
      .pluck(true)
      .get();
    expect(keys).toBe(30);
    const after = json((await h.cli(['status', '--json'])).output);
    expect(after.unfinishedApplies).toEqual([]);
    expect(after.health.reasons.join('\n')).not.toMatch(/unfinished/);
  });
});
