import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readForeignLogins, recordForeignLogin } from '../../src/api/auth/foreignLogins.ts';
import { openStateDb } from '../../src/state/db.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';

let box: Sandbox;
afterEach(async () => {
  await box.cleanup();
});

const HOUR = 3_600_000;

describe('foreign logins in state.db', () => {
  it('counts each refused token once, across connections, over the rolling hour', () => {
    box = makeSandbox('foreign');
    const path = join(box.dataDir, 'state.db');
    const a = openStateDb(path);
    const b = openStateDb(path);
    const t0 = 1_800_000_000_000;
    expect(readForeignLogins(a, t0)).toEqual({ lastHour: 0, lastAt: null });
    expect(recordForeignLogin(a, t0, t0 - 5000).lastHour).toBe(1);
    // The other process meets the refusal of the same token: not counted again.
    expect(recordForeignLogin(b, t0 + 10, t0 - 5000)).toEqual({ lastHour: 1, lastAt: t0 });
    expect(recordForeignLogin(b, t0 + 60_000, t0 + 20)).toEqual({
      lastHour: 2,
      lastAt: t0 + 60_000,
    });
    expect(readForeignLogins(a, t0 + 60_001).lastHour).toBe(2);
    // An hour later the first has left the window.
    expect(readForeignLogins(a, t0 + HOUR)).toEqual({ lastHour: 1, lastAt: t0 + 60_000 });
    expect(recordForeignLogin(a, t0 + 2 * HOUR, t0 + HOUR).lastHour).toBe(1);
    a.close();
    b.close();
  });
});
