/**
 * Commands wake the daemon instead of the daemon reading state.db ten times a second for their
 * requests (an idle daemon's CPU): a command writes `requests.wake`, which the daemon watches.
 * Real state.db connections, a real writer lock, a real file watch; the daemon's own looks are
 * set a minute apart, so a request answered within the command's wait was taken on the wake.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { performAsWriter, serveRequests } from '../../../src/actions/requests.ts';
import { wakeDaemon } from '../../../src/actions/wakeFile.ts';
import { dataPaths } from '../../../src/config/dataPaths.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { openStateDb, type StateDb } from '../../../src/state/db.ts';
import { OperatorRequests } from '../../../src/state/lock/operatorRequests.ts';
import { takeWriterLock, type WriterLock } from '../../../src/state/lock/writerLock.ts';
import { LineWatch } from '../../helpers/logLines.ts';
import { makeSandbox, type Sandbox } from '../../helpers/sandbox.ts';

let box: Sandbox;
let daemonDb: StateDb;
let commandDb: StateDb;
let lock: WriterLock;
let served: ReturnType<typeof serveRequests> | undefined;
let log: LineWatch;

beforeEach(() => {
  box = makeSandbox('wake');
  daemonDb = openStateDb(join(box.dataDir, 'state.db'));
  commandDb = openStateDb(join(box.dataDir, 'state.db'));
  lock = takeWriterLock(box.dataDir, daemonDb, 'daemon').lock!;
  log = new LineWatch();
});
afterEach(async () => {
  await served?.stop();
  served = undefined;
  lock.release();
  commandDb.close();
  daemonDb.close();
  await box.cleanup();
});

const deps = (db: StateDb) => ({
  db,
  config: { dataDir: box.dataDir, stockRulesFile: undefined },
  now: Date.now,
  nudge: async () => false,
});

/** The daemon's side, looking on its own every `pollMs`. */
function serve(pollMs: number) {
  const stream = new PassThrough();
  stream.on('data', (c: Buffer) => {
    for (const line of c.toString().split('\n')) if (line !== '') log.push(line);
  });
  const logger = createLogger({ destination: stream, pretty: false, level: 'debug' });
  served = serveRequests({ ...deps(daemonDb), log: logger, pollMs });
}

const ask = (reason: string) =>
  performAsWriter(
    deps(commandDb),
    { action: 'pause', reason },
    { dataDir: box.dataDir, waitMs: 10_000 },
  );

describe('operator requests: the command nudges the daemon', () => {
  it('a command is answered on its wake, with the daemon looking only once a minute', async () => {
    serve(60_000);
    await expect(ask('stocktake')).resolves.toMatchObject({ reason: 'stocktake', already: false });
    await expect(ask('still')).resolves.toMatchObject({ reason: 'still', already: true });
    expect(log.lines.filter((l) => l.event === 'operator.request')).toHaveLength(2);
  });

  it('after an answer the daemon looks for the next request: two asked, one wake', async () => {
    serve(60_000);
    const requests = new OperatorRequests(commandDb);
    const first = requests.ask('pause', { reason: 'one' }, Date.now());
    const second = requests.ask('resume', {}, Date.now());
    // Nothing is taken without a wake (the next look is a minute away).
    await new Promise((r) => setTimeout(r, 200));
    expect(requests.get(first)?.takenAt).toBeNull();
    wakeDaemon(box.dataDir, Date.now());
    await log.waitFor((l) => l.event === 'operator.request' && l.requestId === second, 5_000);
    await expect.poll(() => requests.get(second)?.doneAt, { timeout: 5_000 }).not.toBeNull();
    expect(JSON.parse(requests.get(first)!.answer!)).toMatchObject({ ok: true });
  });

  it('where the wake file cannot be made or watched, the daemon says so and its own looks take the requests', async () => {
    mkdirSync(dataPaths(box.dataDir).requestWake); // a folder where the file should be
    serve(100);
    expect(log.lines.find((l) => l.event === 'operator.wake_unwatched')).toMatchObject({
      level: 'warn',
    });
    await expect(ask('no nudge')).resolves.toMatchObject({ reason: 'no nudge' });
  });
});
