import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateDb, schemaVersion } from '../../src/state/db.ts';
import { migrations } from '../../src/state/migrations/index.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';

let box: Sandbox;
afterEach(async () => {
  await box.cleanup();
});

describe('state.db', () => {
  it('is created readable by its owner only, in WAL mode, with every migration applied once', () => {
    box = makeSandbox('statedb');
    const path = join(box.dataDir, 'sub', 'state.db');
    const db = openStateDb(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(schemaVersion(db)).toBe(migrations.at(-1)!.version);
    db.close();
    // Opening again (a restart, a second process) applies nothing twice.
    const again = openStateDb(path);
    expect(schemaVersion(again)).toBe(migrations.at(-1)!.version);
    again.close();
  });
});
