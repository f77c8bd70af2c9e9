import { describe, expect, it } from 'vitest';
import { type Assessment, assess, reasonText } from '../../../src/daemon/assess.ts';
import type { Status } from '../../../src/daemon/status.ts';
import type { FileRecord, FileWindow } from '../../../src/state/inbox/fileHistory.ts';

const now = 1_800_000_000_000;

const noFiles: FileWindow = {
  since: now - 86_400_000,
  counts: {
    processed: 0,
    failed: 0,
    held: 0,
    duplicate: 0,
    rejected: 0,
    released: 0,
    processing: 0,
  },
  rowsRejected: 0,
  problems: [],
  problemCount: 0,
};

const file = (over: Partial<FileRecord>): FileRecord => ({
  id: 1,
  name: 'stock.csv',
  storedAs: '20260101T000000Z-1-stock.csv',
  kind: 'factory_stock',
  outcome: 'processed',
  reason: null,
  receivedAt: now - 60_000,
  finishedAt: now - 59_000,
  rowsRead: 10,
  rowsAccepted: 10,
  rowsRejected: 0,
  ...over,
});

function status(over: Partial<Status> = {}): Status {
  return {
    at: now,
    daemon: { at: now - 5000, pid: 1, startedAt: now - 3_600_000 },
    disk: null,
    pendingDifferences: { factory: 0, dc: 0, oldestSince: null },
    failures: {
      stock: { total: 0, notFound: 0 },
      confirmations: { pending: 0, confirmedToday: 0, failed: 0, conflicts: 0 },
    },
    budget: {
      usedLastHour: 0,
      limit: 3600,
      remainingByLane: {
        shipments: 3600,
        poll: 2700,
        operator: 3300,
        stock: 3300,
        products: 2400,
        reconcile: 2700,
      },
      starved: [],
      freesAt: null,
      server: null,
    },
    callsByLane: { shipments: 0, poll: 0, operator: 0, stock: 0, products: 0, reconcile: 0 },
    eta: { calls: 0, at: null },
    token: null,
    loginBlock: null,
    foreignLogins: { lastHour: 0, lastAt: null },
    shipments: {
      open: 0,
      exported: 0,
      awaitingConfirmation: 0,
      deadline: null,
      overdue: null,
    },
    last: { ingest: null, push: null, pushSuccess: null, reconcile: null, poll: null },
    polls: {
      schedule: 'shipments-poll',
      expression: '*/5 * * * *',
      lastAt: now - 60_000,
      dueAt: now + 240_000,
      overdue: false,
      datedAhead: false,
    },
    stale: false,
    files: noFiles,
    held: { files: 0, snapshots: 0, oldestAt: null },
    paused: null,
    unfinishedApplies: [],
    notifications: { queued: 0, oldestAt: null },
    products: {
      created: 0,
      undecided: 0,
      declined: { count: 0, recent: [] },
      toCreate: 0,
      catalogueReadAt: null,
      catalogueProducts: null,
    },
    reconcile: {
      minIntervalMs: 900_000,
      lastFullRead: { factory: null, dc: null },
      inProgress: { factory: null, dc: null },
      driftedKeys: { factory: 0, dc: 0 },
    },
    ...over,
  };
}

/** An assessment in the words of `status`. */
const words = (a: Assessment) => ({ verdict: a.verdict, reasons: a.reasons.map(reasonText) });

describe('assess', () => {
  it('is degraded while pushes are paused, saying why and how to resume', () => {
    const a = assess({
      status: status({ paused: { since: now - 60_000, reason: 'ERP maintenance' } }),
    });
    expect(words(a)).toEqual({
      verdict: 'degraded',
      reasons: [
        'pushes are paused (ERP maintenance): nothing is written to the portal until `supplier-sync resume`',
      ],
    });
  });

  it('needs a person while the guard rails hold something', () => {
    const a = assess({ status: status({ held: { files: 2, snapshots: 1, oldestAt: now } }) });
    expect(words(a)).toEqual({
      verdict: 'needs a person',
      reasons: [
        'the guard rails hold 2 stock file(s) and 1 snapshot read(s): see `supplier-sync held`, then release or reject',
      ],
    });
  });

  it('is degraded by files of the last 24 h that failed or had rejected rows, naming them', () => {
    const problems = [
      file({ id: 5, name: 'c.csv', outcome: 'failed', reason: 'no header names a kind' }),
      file({ id: 4, name: 'b.csv', rowsRead: 10, rowsAccepted: 8, rowsRejected: 2 }),
      file({ id: 3, name: 'a.csv', outcome: 'failed', reason: 'empty' }),
    ];
    const a = assess({
      status: status({ files: { ...noFiles, problems, problemCount: 4, rowsRejected: 2 } }),
    });
    expect(words(a)).toEqual({
      verdict: 'degraded',
      reasons: [
        '4 file(s) in the last 24 h failed or had rejected rows: c.csv failed (no header names a kind); b.csv: 2 of 10 row(s) rejected; a.csv failed (empty), and 1 more: see `supplier-sync files`',
      ],
    });
  });

  it('is healthy with nothing wrong', () => {
    expect(assess({ status: status() })).toEqual({ verdict: 'healthy', reasons: [] });
  });

  it('is degraded by what the daemon mends on its own', () => {
    const a = assess({
      status: status({
        stale: true,
        failures: { ...status().failures, stock: { total: 3, notFound: 1 } },
      }),
      redisError: 'connect ECONNREFUSED',
    });
    expect(a.verdict).toBe('degraded');
    expect(a.reasons.map(reasonText)).toEqual([
      'Redis does not answer (connect ECONNREFUSED)',
      'stock differences are pending with no successful push for long',
      '3 stock item(s) rejected by the portal, retried with back-off: see `supplier-sync failures`',
    ]);
  });

  it('is degraded by repeated foreign logins, not by one', () => {
    const one = { foreignLogins: { lastHour: 1, lastAt: now - 1000 } };
    expect(assess({ status: status(one) }).verdict).toBe('healthy');
    const a = assess({ status: status({ foreignLogins: { lastHour: 3, lastAt: now - 1000 } }) });
    expect(words(a)).toEqual({
      verdict: 'degraded',
      reasons: [
        'the portal invalidated our token 3 times in the last hour: another client is logging in with this account',
      ],
    });
  });

  it('needs a person for what waiting cannot mend, those reasons first', () => {
    const a = assess({
      status: status({
        daemon: { at: now - 120_000, pid: 1, startedAt: now - 3_600_000 },
        loginBlock: { at: now - 1000, status: 401, account: 'a@b' },
        stale: true,
      }),
    });
    expect(a.verdict).toBe('needs a person');
    expect(reasonText(a.reasons[0]!)).toBe('the daemon is not running (last heartbeat 120 s ago)');
    expect(reasonText(a.reasons[1]!)).toMatch(/^the portal refused the credentials/);
    expect(reasonText(a.reasons.at(-1)!)).toMatch(/no successful push/);
    expect(words(assess({ status: status({ daemon: null }) })).reasons).toEqual([
      'the daemon has not run on this data dir (no heartbeat)',
    ]);
  });

  it('gives each reason what it is about, not where to look: the files it names by their ledger id', () => {
    const problems = [
      file({ id: 5, name: 'c.csv', outcome: 'failed', reason: 'no header names a kind' }),
      file({ id: 4, name: 'b.csv', rowsRead: 10, rowsAccepted: 8, rowsRejected: 2 }),
    ];
    const a = assess({
      status: status({
        files: { ...noFiles, problems, problemCount: 2, rowsRejected: 2 },
        held: { files: 1, snapshots: 0, oldestAt: now },
        paused: { since: now - 60_000, reason: null },
        loginBlock: { at: now - 1000, status: 401, account: 'a@b' },
      }),
    });
    expect(a.reasons).toEqual([
      { text: 'the portal refused the credentials', about: 'credentials' },
      { text: 'the guard rails hold 1 stock file(s) and 0 snapshot read(s)', about: 'held' },
      { text: 'pushes are paused', about: 'pause' },
      {
        text: '2 file(s) in the last 24 h failed or had rejected rows',
        items: [
          { text: 'c.csv failed (no header names a kind)', fileId: 5 },
          { text: 'b.csv: 2 of 10 row(s) rejected', fileId: 4 },
        ],
        about: 'files',
      },
    ]);
    // No reason's text names a command: the terminal adds it (reasonText), the console links a page.
    for (const r of a.reasons) expect(r.text).not.toMatch(/supplier-sync/);
  });

  it('takes a heartbeat dated ahead of the clock (it went back) for a daemon not running', () => {
    const a = assess({
      status: status({ daemon: { at: now + 86_400_000, pid: 1, startedAt: now + 86_000_000 } }),
    });
    expect(a.verdict).toBe('needs a person');
    expect(a.reasons[0]?.text).toBe(
      'the daemon is not running (last heartbeat dated 24 h ahead of this clock, which went back since)',
    );
    // A step of the clock within 30 s is no jump: the heartbeat is as good as now.
    const step = status({ daemon: { at: now + 20_000, pid: 1, startedAt: now - 3_600_000 } });
    expect(assess({ status: step }).verdict).toBe('healthy');
  });

  it('is degraded by shipment polls overdue, naming the schedule and when it last ran', () => {
    const polls = (over: Partial<Status['polls']>) =>
      status({ polls: { ...status().polls, ...over } });
    const late = assess({
      status: polls({ lastAt: now - 17 * 60_000, dueAt: now - 12 * 60_000, overdue: true }),
    });
    expect(late).toEqual({
      verdict: 'degraded',
      reasons: [
        {
          text: `shipment polls are overdue: the schedule shipments-poll (SHIPMENTS_POLL_CRON \`*/5 * * * *\`) last ran 17 min ago (${new Date(now - 17 * 60_000).toISOString()}), more than two intervals late`,
          about: 'shipments',
        },
      ],
    });
    const ahead = assess({
      status: polls({ lastAt: now + 3_600_000, dueAt: null, overdue: true, datedAhead: true }),
    });
    expect(ahead.reasons.map((r) => r.text)).toEqual([
      `shipment polls are overdue: the schedule shipments-poll (SHIPMENTS_POLL_CRON \`*/5 * * * *\`) last ran at ${new Date(now + 3_600_000).toISOString()}, dated ahead of this clock, which went back since`,
    ]);
  });
});
