/**
 * The request table commands and the daemon share (src/state/lock/operatorRequests.ts): taken
 * once, oldest first; a request nobody took for too long is dropped, not done late; a command
 * cancels only what was not taken. Real SQLite files.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { OperatorRequests } from '../../src/state/lock/operatorRequests.ts';
import { memoryTempDir } from '../helpers/sandbox.ts';

const dir = memoryTempDir('requests-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let db: StateDb;
let n = 0;
afterEach(() => db?.close());

describe('operator requests', () => {
  it('are taken once, oldest first; too old ones are dropped; only untaken ones can be cancelled', () => {
    db = openStateDb(join(dir, `state-${n++}.db`));
    const requests = new OperatorRequests(db);
    const stale = requests.ask('release', { id: 1 }, 1_000);
    const first = requests.ask('pause', { reason: 'x' }, 200_000);
    const second = requests.ask('resume', {}, 200_001);

    const taken = requests.takeNext(200_100, 120_000);
    expect(taken).toMatchObject({ id: first, action: 'pause', args: '{"reason":"x"}' });
    expect(requests.get(stale)?.cancelledAt).toBe(200_100);
    expect(requests.cancel(first, 200_200)).toBe(false);
    expect(requests.cancel(second, 200_200)).toBe(true);
    expect(requests.takeNext(200_300, 120_000)).toBeUndefined();

    requests.answer(first, { ok: true, result: 1 }, 200_400);
    expect(requests.get(first)).toMatchObject({
      doneAt: 200_400,
      answer: '{"ok":true,"result":1}',
    });
    // A day later, answering another request deletes the old rows.
    const later = requests.ask('resume', {}, 90_000_000);
    requests.takeNext(90_000_001, 120_000);
    requests.answer(later, { ok: true, result: null }, 90_000_002);
    expect(requests.get(first)).toBeUndefined();
    expect(requests.get(later)).toBeDefined();
  });
});
