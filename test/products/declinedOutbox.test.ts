import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ProductListItem } from '../../src/api/index.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { createLogger } from '../../src/log/logger.ts';
import { clearDeclinedTemps, writeDeclinedFiles } from '../../src/products/declinedOutbox.ts';
import { recordStatuses } from '../../src/products/statuses.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { Catalogue } from '../../src/state/products/catalogueStore.ts';
import { ProductDecisions } from '../../src/state/products/productDecisions.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';

/**
 * The declined-products file for the ERP (docs/products.md, "A declined product"): committed
 * with the decision, written under a hidden temporary name and renamed; after a crash at any
 * point between the commit and the record that it is in place, the same file is in `outbox/`
 * once, and a decision read again is no new file. Real SQLite file, real folder.
 */

let box: Sandbox;
let db: StateDb;
let outbox: string;
const log = createLogger({ level: 'silent', pretty: false });
beforeEach(() => {
  box = makeSandbox('declined-outbox');
  outbox = join(box.dataDir, 'outbox');
  mkdirSync(outbox, { recursive: true });
  db = openStateDb(join(box.dataDir, 'state.db'));
});
afterEach(async () => {
  db.close();
  await box.cleanup();
});

const deps = () => ({ db, log, clock: systemClock, appeared: () => 0, outboxDir: outbox });
const listed = (sku: string, status: string, reason: string | null): ProductListItem => ({
  sku,
  platform_sku: '100.200.300',
  name: 'Stool',
  status: status === 'declined' ? 'inactive' : 'pending',
  platform_status: status,
  declined_reason: reason,
});
const files = () => readdirSync(outbox).sort();

it('writes the committed file once, whatever a crash left, and a decision read again is no new file', async () => {
  new Catalogue(db).record(listed('NEW-2', 'inactive', null), Date.now(), {
    at: Date.now(),
    fileId: 1,
    fileName: 'new.csv',
  });
  const seen = recordStatuses([listed('NEW-2', 'declined', 'Too short.')], deps());
  expect(seen.decisions).toEqual([{ sku: 'NEW-2', decision: 'declined', reason: 'Too short.' }]);
  const name = seen.file!;
  // A crash after the commit, while the file was being written: a partial temporary file.
  writeFileSync(join(outbox, `.${name}.partial`), '{"generated_at": "2026-');
  expect(files()).toEqual([`.${name}.partial`]);

  // The next start: temporary files cleared, the committed file written from state.db.
  expect(await clearDeclinedTemps(outbox)).toBe(1);
  expect(await writeDeclinedFiles(deps())).toEqual([name]);
  expect(files()).toEqual([name]);
  const content = readFileSync(join(outbox, name), 'utf8');
  expect(content).toBe(new ProductDecisions(db).file(name)?.content);
  expect(JSON.parse(content).products).toEqual([
    expect.objectContaining({ sku: 'NEW-2', declined_reason: 'Too short.', created_by: 'new.csv' }),
  ]);
  expect(new ProductDecisions(db).unwrittenFiles()).toEqual([]);

  // Nothing more to write; the same statuses read again are no new decision.
  expect(await writeDeclinedFiles(deps())).toEqual([]);
  expect(recordStatuses([listed('NEW-2', 'declined', 'Too short.')], deps()).file).toBeNull();
  expect(files()).toEqual([name]);
});

it('a file renamed into place before its record is left as it is, and recorded', async () => {
  new Catalogue(db).record(listed('NEW-3', 'inactive', null), Date.now(), {
    at: Date.now(),
    fileId: 1,
    fileName: 'new.csv',
  });
  const name = recordStatuses([listed('NEW-3', 'declined', 'No images.')], deps()).file!;
  const committed = new ProductDecisions(db).file(name)!.content;
  // A crash right after the rename: the file is in place, state.db does not say so.
  writeFileSync(join(outbox, name), committed);
  expect(await writeDeclinedFiles(deps())).toEqual([name]);
  expect(files()).toEqual([name]);
  expect(readFileSync(join(outbox, name), 'utf8')).toBe(committed);
  expect(new ProductDecisions(db).file(name)?.writtenAt).not.toBeNull();
});
